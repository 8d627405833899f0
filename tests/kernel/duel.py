"""Duel: a tiny game that exists only to prove the kernel's contracts.

Two sides (red, blue) on a line of five cells. Rules, numbered so cases can cite them:

* D1 Turns alternate, red first, one order each: move, attack or pass. Before the first
  turn red secretly places a trap (D4).
* D2 ``move UNIT CELL``: to an adjacent cell without enemy units.
* D3 ``attack UNIT CELL``: a unit attacks an adjacent cell holding enemy units; a DR
  (2d6) plus the attacker's strength of 9 or more hits, and the defending side must
  decide (D5) for its strongest unit there.
* D4 ``trap CELL``: red's secret. A blue unit moving into the trap reveals it; a dr of
  4-6 eliminates that unit. The trap is then gone.
* D5 ``decide yield`` (retreat one cell away from the attacker; legal only if that cell
  exists and holds no enemy) or ``decide lose`` (the unit is eliminated). Default: lose.
  Standing orders: ``standing casualty yield-first`` / ``standing casualty lose``.
* D6 A side with no units left loses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field, TypeAdapter

from adjudicator.kernel.decisions import Option, PendingDecision, StandingPolicy
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import Game
from adjudicator.kernel.names import Named, NameIndex
from adjudicator.kernel.orders import Order
from adjudicator.kernel.spec import Kind, OrderSpec, Verb, plain
from adjudicator.kernel.state import GameState
from adjudicator.kernel.views import View
from adjudicator.registry import register

CELLS = {"1": "Ford", "2": "Hill", "3": "Mill", "4": "Bridge", "5": "Wood"}
CELL_NAMES = NameIndex.of("cell", (Named(key, name) for key, name in CELLS.items()))
SIDES = ("red", "blue")


class Move(Order):
    verb: Literal["move"] = "move"
    unit: str
    cell: str


class Attack(Order):
    verb: Literal["attack"] = "attack"
    unit: str
    cell: str


class Pass(Order):
    verb: Literal["pass"] = "pass"


class PlaceTrap(Order):
    verb: Literal["trap"] = "trap"
    cell: str


class Decide(Order):
    verb: Literal["decide"] = "decide"
    choice: Literal["yield", "lose"]


DuelOrder = Annotated[Move | Attack | Pass | PlaceTrap | Decide, Field(discriminator="verb")]
ORDER_ADAPTER: TypeAdapter[DuelOrder] = TypeAdapter(DuelOrder)

CELL = Kind("cell", "CELL", "a cell: 1-5 or its name", many=True,
            read=lambda words, names: CELL_NAMES.resolve(" ".join(plain(words))))
SPEC = OrderSpec("duel", [
    Verb(Move, ("move UNIT CELL",), "move a unit to an adjacent cell", ("D2",), ("move r1 2",)),
    Verb(Attack, ("attack UNIT CELL",), "attack an adjacent cell", ("D3",), ("attack r2 3",)),
    Verb(Pass, ("pass",), "do nothing this turn", ("D1",), ("pass",)),
    Verb(PlaceTrap, ("trap CELL",), "red's secret trap", ("D4",), ("trap 3",), secret=True),
    Verb(Decide, ("decide {yield|lose}:choice",), "answer a hit", ("D5",), ("decide lose",)),
], kinds={"CELL": CELL})


class Unit(BaseModel):
    id: str
    side: str
    cell: str
    strength: int


class DuelState(GameState):
    game: str = "duel"
    phase: Literal["trap", "play"] = "trap"
    turn: str = "red"
    units: list[Unit] = Field(default_factory=list)
    trap: str | None = None
    trap_placed: bool = False
    passes: int = 0


class DuelView(View):
    units: list[Unit]
    trap: str | None = None
    trap_placed: bool


def other(side: str) -> str:
    return "blue" if side == "red" else "red"


class DuelGame(Game[DuelState]):
    name: ClassVar[str] = "duel"
    title: ClassVar[str] = "Duel (kernel contract game)"
    sides: ClassVar[tuple[str, ...]] = SIDES
    state_type: ClassVar[type[GameState]] = DuelState
    order_spec: ClassVar[OrderSpec] = SPEC

    def scenarios(self) -> dict[str, str]:
        return {"standard": "two units a side, red places a trap"}

    def setup(self, scenario: str | None = None,
              options: Mapping[str, Any] | None = None) -> DuelState:
        if scenario not in (None, "standard"):
            raise ValueError(f"unknown scenario {scenario!r}")
        return DuelState(units=[
            Unit(id="r1", side="red", cell="1", strength=3),
            Unit(id="r2", side="red", cell="2", strength=2),
            Unit(id="b1", side="blue", cell="5", strength=3),
            Unit(id="b2", side="blue", cell="4", strength=2),
        ])

    # ---- rules --------------------------------------------------------------------------

    def to_act(self, state: DuelState) -> str | None:
        return "red" if state.phase == "trap" else state.turn

    def resolve(self, state: DuelState, side: str, order: Order, dice: Dice) -> list[Event]:
        if state.pending is not None:
            if not isinstance(order, Decide):
                raise RuleError("D5", "answer the pending decision first",
                                state.pending.option_orders())
            return self._decide(state, side, order)
        if state.phase == "trap":
            if not isinstance(order, PlaceTrap):
                raise RuleError("D1", "red places the trap before the first turn",
                                [f"trap {c}" for c in CELLS])
            state.trap, state.trap_placed, state.phase = order.cell, True, "play"
            return [Event(kind="trap", text=f"red sets the trap in {CELLS[order.cell]}",
                          audience="red", rule="D4"),
                    Event(kind="trap-placed", text="red has placed a trap", rule="D4")]
        match order:
            case Pass():
                state.passes += 1
                events = [Event(kind="pass", text=f"{side} passes", rule="D1")]
            case Move():
                events = self._move(state, side, order, dice)
            case Attack():
                events = self._attack(state, side, order, dice)
            case _:
                raise RuleError("D1", f"{self.format(order)} is not legal now",
                                self.legal_orders(state, side))
        if state.pending is None:
            state.turn = other(side)
        self._check_end(state)
        return events

    def _unit(self, state: DuelState, side: str, unit_id: str) -> Unit:
        for unit in state.units:
            if unit.id == unit_id.lower() and unit.side == side:
                return unit
        raise RuleError("D1", f"{side} has no unit {unit_id!r}",
                        [u.id for u in state.units if u.side == side])

    def _move(self, state: DuelState, side: str, order: Move, dice: Dice) -> list[Event]:
        unit = self._unit(state, side, order.unit)
        if abs(int(unit.cell) - int(order.cell)) != 1:
            raise RuleError("D2", f"{CELLS[order.cell]} is not adjacent to {CELLS[unit.cell]}",
                            [f"move {unit.id} {c}" for c in self._steps(state, unit)])
        if any(u.cell == order.cell and u.side != side for u in state.units):
            raise RuleError("D2", f"{CELLS[order.cell]} holds enemy units",
                            [f"move {unit.id} {c}" for c in self._steps(state, unit)])
        unit.cell = order.cell
        events = [Event(kind="move", text=f"{unit.id} moves to {CELLS[order.cell]}", rule="D2",
                        data={"unit": unit.id, "cell": order.cell})]
        if side == "blue" and state.trap == order.cell:
            roll = dice.roll("trap dr", count=1)
            state.trap = None
            killed = roll.total >= 4
            events.append(Event(kind="trap-sprung",
                                text=f"a trap in {CELLS[order.cell]} springs on {unit.id}: "
                                     + ("eliminated" if killed else "survives"),
                                rule="D4", data={"unit": unit.id, "cell": order.cell,
                                                 "eliminated": killed}))
            if killed:
                state.units.remove(unit)
        return events

    def _steps(self, state: DuelState, unit: Unit) -> list[str]:
        return [c for c in CELLS if abs(int(c) - int(unit.cell)) == 1
                and not any(u.cell == c and u.side != unit.side for u in state.units)]

    def _attack(self, state: DuelState, side: str, order: Attack, dice: Dice) -> list[Event]:
        unit = self._unit(state, side, order.unit)
        targets = [u for u in state.units if u.cell == order.cell and u.side != side]
        if abs(int(unit.cell) - int(order.cell)) != 1 or not targets:
            raise RuleError("D3", f"{unit.id} cannot attack {CELLS[order.cell]}",
                            [o for o in self.legal_orders(state, side) if o.startswith("attack")])
        roll = dice.roll(f"{side} attack DR")
        total = roll.total + unit.strength
        hit = total >= 9
        events = [Event(kind="attack", text=f"{unit.id} attacks {CELLS[order.cell]}: {total} — "
                        + ("hit" if hit else "miss"), rule="D3",
                        data={"unit": unit.id, "total": total, "hit": hit})]
        if hit:
            defender = max(targets, key=lambda u: (u.strength, u.id))
            away = int(order.cell) + (int(order.cell) - int(unit.cell))
            options = [Option(order="decide lose", label=f"eliminate {defender.id}")]
            if str(away) in CELLS and not any(
                u.cell == str(away) and u.side == side for u in state.units
            ):
                options.insert(0, Option(order="decide yield",
                                         label=f"{defender.id} retreats to {CELLS[str(away)]}"))
            state.pending = PendingDecision(
                kind="casualty", side=other(side), rule="D5",
                prompt=f"{defender.id} is hit: yield or lose?", options=tuple(options),
                default="decide lose",
                data={"unit": defender.id, "away": str(away), "attacker": side})
        return events

    def _decide(self, state: DuelState, side: str, order: Decide) -> list[Event]:
        decision = state.pending
        assert decision is not None
        text = self.format(order)
        if text not in decision.option_orders():
            raise RuleError("D5", f"{text} is not a legal answer", decision.option_orders())
        unit = self._unit(state, side, str(decision.data["unit"]))
        state.pending = None
        if order.choice == "yield":
            unit.cell = str(decision.data["away"])
            event = Event(kind="yield", text=f"{unit.id} retreats to {CELLS[unit.cell]}",
                          rule="D5", data={"unit": unit.id, "cell": unit.cell})
        else:
            state.units.remove(unit)
            event = Event(kind="eliminated", text=f"{unit.id} is eliminated", rule="D5",
                          data={"unit": unit.id})
        state.turn = side
        self._check_end(state)
        return [event]

    def _check_end(self, state: DuelState) -> None:
        for side in SIDES:
            if not any(u.side == side for u in state.units):
                state.result = f"{other(side)} wins"

    # ---- queries ------------------------------------------------------------------------

    def legal_orders(self, state: DuelState, side: str) -> list[str]:
        if state.result is not None or self.acting_side(state) != side:
            return []
        if state.pending is not None:
            return state.pending.option_orders()
        if state.phase == "trap":
            return [f"trap {cell}" for cell in CELLS]
        orders = ["pass"]
        for unit in (u for u in state.units if u.side == side):
            orders += [f"move {unit.id} {c}" for c in self._steps(state, unit)]
            for cell in CELLS:
                if abs(int(cell) - int(unit.cell)) == 1 and any(
                    u.cell == cell and u.side != side for u in state.units
                ):
                    orders.append(f"attack {unit.id} {cell}")
        return orders

    def standing_policies(self) -> list[StandingPolicy]:
        return [
            StandingPolicy(kind="casualty", policy="yield-first",
                           description="retreat when possible, otherwise lose the unit"),
            StandingPolicy(kind="casualty", policy="lose", description="always lose the unit"),
        ]

    def standing_answer(self, state: DuelState, decision: PendingDecision,
                        policy: str) -> str | None:
        if decision.kind != "casualty":
            return None
        if policy == "yield-first" and "decide yield" in decision.option_orders():
            return "decide yield"
        return "decide lose"

    def make_view(self, state: DuelState, viewer: str) -> DuelView:
        sees_trap = viewer in ("red", "gm")
        return DuelView(game=self.name, viewer=viewer,
                        units=[u.model_copy() for u in state.units],
                        trap=state.trap if sees_trap else None, trap_placed=state.trap_placed)

    def board_text(self, view: View) -> str:
        assert isinstance(view, DuelView)
        lines = []
        for key, name in CELLS.items():
            here = " ".join(f"{u.id}({u.strength})" for u in view.units if u.cell == key)
            trap = " [trap]" if view.trap == key else ""
            lines.append(f"{key} {name:<7}{trap} {here}")
        return "\n".join(lines)

    # ---- conformance ----------------------------------------------------------------------

    def case_position(self, position: Mapping[str, Any]) -> DuelState:
        state = self.setup()
        if "units" in position:
            state.units = [Unit.model_validate(u) for u in position["units"]]
        if "trap" in position:
            state.trap, state.trap_placed, state.phase = str(position["trap"]), True, "play"
        if position.get("phase"):
            state.phase = position["phase"]
        state.turn = position.get("to_act", state.turn)
        for side, policies in position.get("standing", {}).items():
            state.standing[side] = dict(policies)
        return state

    def case_check(self, state: DuelState, expect: Mapping[str, Any]) -> list[str]:
        failures = []
        unknown = set(expect) - {"unit", "cell", "alive", "trap"}
        if unknown:
            failures.append(f"unknown expectation keys {sorted(unknown)}")
        if "unit" in expect:
            unit = next((u for u in state.units if u.id == expect["unit"]), None)
            alive = unit is not None
            if "alive" in expect and alive != expect["alive"]:
                failures.append(f"{expect['unit']}: alive={alive}, expected {expect['alive']}")
            if "cell" in expect and (unit is None or unit.cell != str(expect["cell"])):
                failures.append(f"{expect['unit']}: in {unit.cell if unit else 'no cell'}, "
                                f"expected {expect['cell']}")
        if "trap" in expect and state.trap != (expect["trap"] or None):
            failures.append(f"trap: {state.trap}, expected {expect['trap']}")
        return failures


#: The name tests look Duel up by. The registry resolves registered names only (nothing a
#: user types is imported), so the module that defines the game registers it.
register("tests.kernel.duel:DuelGame", DuelGame)
