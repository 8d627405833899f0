"""Stalin's Tanks: the rules, bound to a data pack.

Sequence of play (5.0): each turn has two player turns, each of five phases — First
Movement, Stationary Fire, Defensive Fire, Mobile Fire, Second Movement. The phasing
player ends each of his phases with ``done``. The Defensive Fire Phase belongs to the
other player: it is a pending decision (kind ``defensive-fire``) that he answers with fire
and close assault orders and ``done``, or leaves to a standing order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from adjudicator.kernel.briefing import Briefing
from adjudicator.kernel.decisions import (
    Decisions,
    Option,
    PendingDecision,
    SetupGuide,
    StandingPolicy,
)
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import Game
from adjudicator.kernel.orders import Order
from adjudicator.kernel.views import View
from adjudicator.tanks import (
    artillery,
    briefing,
    data,
    defensive,
    entry,
    fire,
    legal,
    movement,
    paths,
    scenario,
)
from adjudicator.tanks.case_views import check_sees
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.hidden import publish_all
from adjudicator.tanks.last_action import fold
from adjudicator.tanks.orders import (
    SPEC,
    Assault,
    Barrage,
    Done,
    Enter,
    Fire,
    Hide,
    Load,
    Mine,
    Move,
    Placement,
    Remove,
    Unload,
    parse_hex,
)
from adjudicator.tanks.scenario import OPTIONS, SCENARIO_RULE_FLAGS
from adjudicator.tanks.sides import SIDES, other
from adjudicator.tanks.spec import RulesData, rules_data
from adjudicator.tanks.state import (
    FIRE_PHASES,
    PHASE_NAMES,
    PHASES,
    Marker,
    SecretSet,
    TanksState,
    Unit,
)
from adjudicator.tanks.views import TanksView, board_text, build_view

#: The decisions the rules give a side (5.1's Defensive Fire), beside their rules.
DECISIONS: Decisions[Ctx] = Decisions(defensive.DEFENSIVE_FIRE)
#: The position keys of a case (docs/conformance.md); ``options`` is the case's [options].
CASE_POSITION_KEYS = frozenset({
    "scenario", "options", "turn", "last_turn", "phasing", "to_act", "first", "phase",
    "advanced",
    "terrain", "roads", "map_size", "types", "units", "mines", "known_mines", "barrages",
    "marker", "flags", "blank_map", "standing", "setup", "hidden", "mine_count", "secrets"})
#: The expectation keys of a case (docs/conformance.md): a unit's, then the others.
CASE_UNIT_KEYS = frozenset({"unit", "hex", "facing", "status", "alive", "hidden", "disrupted",
                            "spent", "carrier", "moved", "open", "exited_edge", "force"})
CASE_OTHER_KEYS = frozenset({"phase", "turn", "phasing", "mines_known", "public_lacks",
                             "opponent_lacks", "public_has", "commitment", "legal_has",
                             "legal_lacks", "sees"})


class TanksGame(Game[TanksState], name="tanks", title="Stalin's Tanks", sides=SIDES,
                state_type=TanksState, order_spec=SPEC):
    """The rules of Stalin's Tanks, bound to a data pack."""

    def __init__(self, pack: Path | None = None) -> None:
        super().__init__(pack)
        self.data: RulesData = rules_data(pack)

    def ctx(self, state: TanksState, dice: Dice | None = None) -> Ctx:
        return Ctx(self.data, state, dice)

    # ---- set-up and notation ------------------------------------------------------------

    def scenarios(self) -> dict[str, str]:
        out = {}
        for key, sc in self.data.scenarios.items():
            record: Any = sc
            out[key] = f"{record.section} {record.title} ({record.level}, {record.turns} turns)"
        return out

    def scenario_briefing(self, scenario: str) -> Briefing:
        """25.1-25.7: the scenario's briefing from the pack (:mod:`adjudicator.tanks.briefing`)."""
        return briefing.scenario_briefing(data.load_pack(self.pack), scenario, self.title)

    def options(self, scenario: str | None = None) -> dict[str, str]:
        """The optional rules of 21-24 and the basic game of 25.4 (any scenario)."""
        return dict(OPTIONS)

    def setup(self, scenario_name: str | None = None,
              options: Mapping[str, Any] | None = None) -> TanksState:
        name = scenario_name or next(iter(self.data.scenarios))
        state = scenario.build(self.data, name, options)
        if state.phase != "setup":
            self._start_player_turn(self.ctx(state))
        return state

    def private_input(self, state: TanksState) -> str | None:
        """The side that is now entering secrets (hidden set-up 20.0, face-down set-up 25.7,
        mines 19.1), if any.

        Frontends take that side's lines privately (a DM, a hidden console prompt) and show
        its events only to it; they must never echo a secret order's text to anyone else.
        """
        side = scenario.setup_side(state)
        if side is None:
            return None
        return side if scenario.sets_up_secrets(state, side) else None

    def secret_in_position(self, state: TanksState, side: str, order: Order) -> bool:
        """Beside the secret verbs (hide 20.0, mine 19.1): in a face-down set-up (25.7) a
        plain placement, which names the unit the other side may not know."""
        rules = state.flags.get("hidden", {}).get(side)
        face_down = (scenario.setup_side(state) == side and bool(rules)
                     and rules["mode"] == "face-down")
        return face_down and isinstance(order, Placement)

    def undo_reveals(self, public_events: list[Event]) -> list[str]:
        """What an order's public events disclosed that an undo could not take back.

        The service refuses a player's undo when this names anything (docs/service.md): a
        hidden unit spotted or revealed (20.0), a minefield found (19.2), face-down units
        turned up (25.7), secret set-ups published. Undoing would hide again what the
        opponent has already seen.
        """
        found: list[str] = []
        for event in public_events:
            data = event.data
            if event.kind == "revealed":
                found.append(f"hidden unit {data.get('unit')} in {data.get('hex')} (20.0)")
            elif event.kind == "mine-revealed":
                found.append(f"a minefield in {data.get('hex')} (19.2)")
            elif event.kind == "face-up":
                found.append(f"face-down units {', '.join(data.get('units', []))} (25.7)")
            elif event.kind == "secrets-revealed":
                found.append(f"{data.get('side')}'s secret set-up (20.0)")
        return found

    # ---- whose turn ---------------------------------------------------------------------

    def to_act(self, state: TanksState) -> str | None:
        if state.result is not None:
            return None
        if state.phase == "setup":
            return scenario.setup_side(state)
        if state.phase == "defensive":
            return other(state.phasing)
        return state.phasing

    # ---- resolving orders -----------------------------------------------------------------

    def expand(self, state: TanksState, side: str, order: Order) -> list[Order] | None:
        """6.5: ``enter all at HEX-HEX`` stands for one ``move UNIT HEX`` per unit still
        to enter (:mod:`adjudicator.tanks.entry`); every other order is itself."""
        if not isinstance(order, Enter) or state.pending is not None \
                or self.acting_side(state) != side:
            return None  # not this side's to give now: ``apply`` refuses it as it stands
        return list(entry.expand(self.ctx(state), side, order))

    def resolve(self, state: TanksState, side: str, order: Order, dice: Dice) -> list[Event]:
        if isinstance(order, Enter):  # applied whole (a conformance step): each move in turn
            events: list[Event] = []
            for move in entry.expand(self.ctx(state), side, order):
                try:
                    events += self.resolve(state, side, move, dice)
                except RuleError as error:
                    raise RuleError(error.rule, f"{self.format(move)}: {error.message}",
                                    error.legal) from error
            return events
        ctx = self.ctx(state, dice)
        if state.phase == "setup":
            self._setup_order(ctx, side, order)
            return ctx.events
        if isinstance(order, (Placement, Mine, Remove)):
            raise RuleError("19.1" if isinstance(order, Mine) else "20.0",
                            "secret and visible placement happen only during the set-up")
        match order:
            case Done():
                self._end_phase(ctx)
            case Move(unit=unit_id, steps=steps, to=None):
                unit = self._own_unit(ctx, side, unit_id)
                plan = movement.plan(ctx, side, unit, steps)
                if plan.steps:
                    movement.execute(ctx, plan)
                else:  # only turns to the facing it has: not an error, nothing to do
                    ctx.emit("note", f"{unit.id} already faces {unit.facing}: nothing to do",
                             "8.3", audience=side, unit=unit.id)
            case Move(unit=unit_id, to=str(dest), face=face):
                self._move_to(ctx, side, self._own_unit(ctx, side, unit_id), dest, face)
            case Load():
                self._load(ctx, side, order)
            case Unload():
                self._unload(ctx, side, order)
            case Fire(units=units, target=target, mode=mode):
                shot = fire.plan_fire(ctx, side, tuple(self._own_unit(ctx, side, u).id
                                                       for u in units), target, mode)
                fire.resolve_fire(ctx, shot)
            case Assault(unit=unit_id, target=target, suicide=suicide):
                own = self._own_unit(ctx, side, unit_id)
                attacker, victim, need = fire.plan_assault(ctx, side, own.id, target, suicide)
                fire.resolve_assault(ctx, attacker, victim, need, suicide)
            case Barrage(hex=where):
                artillery.place(ctx, side, where)
            case _:
                raise RuleError("5.0", f"{self.format(order)} is not an order of this game")
        if state.phase == "defensive" and state.result is None:
            state.pending = self._defensive_decision(ctx)
        self._record_last_action(ctx)
        return ctx.events

    @staticmethod
    def _move_to(ctx: Ctx, side: str, unit: Unit, dest: str, face: str | None) -> None:
        """``move UNIT to HEX [face D]``: the cheapest legal path within the Movement
        Factor, found on what the side knows (never on a secret); the reply says which.
        A facing asked of a unit that has none is refused, never dropped (8.1)."""
        kind = ctx.type_of(unit)
        if face and not kind.has_facing:
            raise RuleError("8.1", f"{unit.id} ({kind.label}) has no facing: only tanks and "
                            f"SP guns face a hexside; leave out 'face {face}'",
                            [f"move {unit.id} to {dest}"])
        tokens, cost = paths.path_to(ctx, side, unit, dest, face)
        if not tokens:  # already there, facing as asked: nothing to do, and no error
            ctx.emit("note", f"{unit.id} is already in {dest}"
                     + (f" facing {face}" if face else "") + ": nothing to do", "8.3",
                     audience=side, unit=unit.id)
            return
        ctx.emit("path", f"{unit.id}: the cheapest path to {dest}"
                 + (f" facing {face}" if face else "") + f" is {' '.join(tokens)} ({cost})",
                 "6.0", audience=side, unit=unit.id, steps=tokens, cost=cost)
        movement.execute(ctx, movement.plan(ctx, side, unit, tuple(tokens)))

    @staticmethod
    def _record_last_action(ctx: Ctx) -> None:
        """Keep what this order did for the map picture (a ``done`` that only ends a phase
        leaves the previous action in place; one that lets a barrage fall replaces it)."""
        record = fold(ctx.events)
        if not record.is_empty():
            ctx.state.last_action = record

    def _own_unit(self, ctx: Ctx, side: str, text: str) -> Unit:
        """A unit of ``side`` by id or any name :meth:`Ctx.find` reads (forgiving)."""
        mine = [u for u in ctx.state.units if u.side == side]
        try:
            return ctx.find(mine, text, f"{side} unit")
        except RuleError as error:
            playing = sorted(u.id for u in mine if u.status in ("on", "waiting"))
            raise RuleError("notation", error.message,
                            playing[:12] if error.legal else []) from None

    def _setup_order(self, ctx: Ctx, side: str, order: Order) -> None:
        match order:
            case Placement(unit=unit_id, hex=where, facing=facing):
                unit = self._own_unit(ctx, side, unit_id)
                scenario.place(ctx, side, unit.id, where, facing, hidden=isinstance(order, Hide))
            case Mine(hex=where):
                scenario.place_mine(ctx, side, where)
            case Remove(unit=unit_id, mine=mine):
                scenario.remove(ctx, side, unit_id, mine)
            case Done():
                scenario.finish_setup(ctx, side)
                if ctx.state.phase != "setup":
                    self._start_player_turn(ctx)
            case _:
                raise RuleError("4.0", "during the set-up: place, hide, mine, remove or done",
                                legal.setup_orders(ctx, side)[:12])

    def _load(self, ctx: Ctx, side: str, order: Load) -> None:
        state = ctx.state
        halftrack = self._own_unit(ctx, side, order.unit)
        passenger = self._own_unit(ctx, side, order.passenger)
        if state.phase != "move1":
            raise RuleError("17.1", "loading happens in the First Movement Phase")
        if ctx.type_of(halftrack).kind != "halftrack":
            raise RuleError("17.1", f"{halftrack.id} is not a halftrack")
        if ctx.type_of(passenger).kind not in ("infantry", "at_gun"):
            raise RuleError("17.1", "a halftrack carries infantry or tows an AT gun")
        if ctx.passenger_of(halftrack) is not None:
            raise RuleError("17.1", f"{halftrack.id} already transports a unit")
        if passenger.status != "on" or passenger.carrier is not None:
            raise RuleError("17.1", f"{passenger.id} is not on the map ready to load")
        plan = movement.plan(ctx, side, halftrack, order.steps, loading=passenger)
        movement.execute(ctx, plan, loading=passenger)

    def _unload(self, ctx: Ctx, side: str, order: Unload) -> None:
        state = ctx.state
        halftrack = self._own_unit(ctx, side, order.unit)
        if state.phase != "move2":
            raise RuleError("17.3", "unloading happens in the Second Movement Phase")
        passenger = ctx.passenger_of(halftrack)
        if passenger is None:
            raise RuleError("17.3", f"{halftrack.id} transports nothing")
        if halftrack.spent or halftrack.move_done:
            raise RuleError("17.3", "the halftrack may not move before unloading")
        if halftrack.no_move:
            raise RuleError("14.3", f"{halftrack.id} is disrupted")
        plan = movement.plan(ctx, side, halftrack, order.steps) if order.steps else None
        passenger.carrier = None
        passenger.unloaded_now = True
        halftrack.unloaded_now = True
        if halftrack.hidden:
            ctx.reveal(halftrack, "it unloads")
        if passenger.hidden:
            ctx.reveal(passenger, "it unloads")
        ctx.emit("unload", f"{halftrack.id} unloads {passenger.id} in {halftrack.hex}", "17.3",
                 unit=halftrack.id, passenger=passenger.id, hex=halftrack.hex)
        if plan is not None:
            movement.execute(ctx, plan)

    # ---- phases ---------------------------------------------------------------------------

    def _start_player_turn(self, ctx: Ctx) -> None:
        state = ctx.state
        state.phase = "move1"
        state.marker = None
        state.moves_started = False
        for unit in state.units:
            unit.moved = unit.overran = unit.loaded_now = unit.unloaded_now = False
        self._start_phase(ctx)
        ctx.emit("phase", f"turn {state.turn}: {state.phasing} player turn, "
                 f"{PHASE_NAMES['move1']}", "5.0", turn=state.turn, phasing=state.phasing,
                 phase="move1")

    @staticmethod
    def _start_phase(ctx: Ctx) -> None:
        ctx.state.entries = {}
        for unit in ctx.state.units:
            unit.spent = unit.road_spent = 0
            unit.move_open = unit.move_done = unit.off_road = unit.fired = False

    def _end_phase(self, ctx: Ctx) -> None:
        state = ctx.state
        phase = state.phase
        if phase == "move1":
            self._check_entries(ctx)
        # 14.3: disruption lasts for the next fire phase / movement phase it would act in
        for unit in state.units:
            if unit.status != "on":
                continue
            if phase in FIRE_PHASES and unit.no_fire and fire.eligible(ctx, unit, phase) is None:
                unit.no_fire = False
            if phase in ("move1", "move2") and unit.no_move and unit.side == state.phasing:
                unit.no_move = False
        state.pending = None
        if phase == "mobile":
            artillery.fall(ctx)
        if phase == "move2":
            self._next_player_turn(ctx)
            return
        state.phase = PHASES[PHASES.index(phase) + 1]
        self._start_phase(ctx)
        if state.phase == "defensive":
            self._unconceal(ctx, other(state.phasing))
        ctx.emit("phase", f"{PHASE_NAMES[state.phase]} ({state.phasing} player turn)", "5.0",
                 turn=state.turn, phasing=state.phasing, phase=state.phase)

    def _unconceal(self, ctx: Ctx, side: str) -> None:
        """25.7: face-down units turn face-up at the start of their Defensive Fire Phase."""
        shown = [u for u in ctx.state.units if u.side == side and u.concealed]
        for unit in shown:
            unit.concealed = False
        if shown:
            ctx.emit("face-up", f"{side} units are turned face-up: "
                     + ", ".join(f"{u.id} in {u.hex}" for u in shown if u.status == "on"),
                     "25.7", units=[u.id for u in shown])

    def _check_entries(self, ctx: Ctx) -> None:
        state = ctx.state
        side = state.phasing
        late, able, moves = legal.owed_entries(ctx, side)
        if able:
            raise RuleError("6.5", f"these {side} units must enter the map this turn: "
                            + ", ".join(u.id for u in able),
                            [o for u in able for o in moves[u.id][:6]])
        if late:  # no free entry hex is left: they enter on a later turn (docs/rulings.md)
            ctx.emit("entry-blocked", f"{', '.join(u.id for u in late)} could not enter: "
                     "every entry hex is blocked; they may enter next turn", "6.5",
                     units=[u.id for u in late])
            for unit in late:
                unit.enter_turns = [*unit.enter_turns, state.turn + 1]

    def _next_player_turn(self, ctx: Ctx) -> None:
        state = ctx.state
        if state.player == 0:
            state.player = 1
        else:
            state.player = 0
            if state.turn >= state.last_turn:
                state.result = scenario.victory(ctx)
                ctx.emit("game-over", f"the game is over: {state.result}", "25.0",
                         result=state.result)
                publish_all(ctx)
                return
            state.turn += 1
        self._start_player_turn(ctx)

    # ---- the Defensive Fire decision --------------------------------------------------------

    @staticmethod
    def _defensive_decision(ctx: Ctx) -> PendingDecision:
        return defensive.decision(ctx)

    def standing_policies(self) -> list[StandingPolicy]:
        return DECISIONS.policies()

    def standing_answer(self, state: TanksState, decision: PendingDecision,
                        policy: str) -> str | None:
        return DECISIONS.standing_answer(self.ctx(state), decision, policy)

    # ---- views --------------------------------------------------------------------------

    def make_view(self, state: TanksState, viewer: str) -> TanksView:
        return build_view(self.ctx(state), self.name, viewer)

    def board_text(self, view: View) -> str:
        assert isinstance(view, TanksView)
        return board_text(view)

    # ---- legal orders ---------------------------------------------------------------------

    def legal_orders(self, state: TanksState, side: str) -> list[str]:
        """Every order ``side`` may give now, judged on what it knows (``tanks.legal``)."""
        if state.result is not None or self.acting_side(state) != side:
            return []
        if state.pending is not None:
            return state.pending.option_orders()
        return legal.legal_orders(self.ctx(state), side)


    def name_resolvers(self, state: TanksState, side: str
                       ) -> dict[str, Callable[[str], str]]:
        """Units ``side`` may name (its own and the enemies it sees), hexes."""
        ctx = self.ctx(state)
        known = [u for u in state.units if u.side == side or (
            u.status == "on" and not u.hidden and not u.concealed)]
        return {"unit": lambda text: ctx.find(known, text, "unit").id, "place": parse_hex}

    def setup_guide(self, state: TanksState, side: str) -> SetupGuide | None:
        """What ``side`` has left to set up in secret (20.0, 19.1) and where."""
        if self.private_input(state) != side:
            return None
        return scenario.setup_guide(self.ctx(state), side)

    def legal_options(self, state: TanksState, side: str, complete: bool = False
                      ) -> list[Option]:
        """The legal orders with a label each: a move's cost, a shot's odds.
        ``complete``: the complete listing, in the Defensive Fire decision too (5.1: its
        answer is any fire order the rules accept, so its families are the fire phase's —
        AT or AP named, combined fire by any of the infantry, 13.1, 15.2)."""
        if state.result is not None or self.acting_side(state) != side:
            return super().legal_options(state, side)
        if complete and (state.pending is None or state.pending.kind == defensive.DEFENSIVE):
            return list(legal.legal_listing(self.ctx(state), side))
        if state.pending is not None:
            return super().legal_options(state, side)
        return [Option(order=order, label=label)
                for order, label in legal.legal_entries(self.ctx(state), side)]

    def listing_form(self, order: Order) -> Order:
        """A move by where it ends (``tanks.legal.listing_form``)."""
        return legal.listing_form(order)

    # ---- conformance ----------------------------------------------------------------------

    def case_position(self, position: Mapping[str, Any]) -> TanksState:
        unknown = set(position) - CASE_POSITION_KEYS
        if unknown:
            raise ValueError(f"unknown position keys {sorted(unknown)}; known: "
                             f"{', '.join(sorted(CASE_POSITION_KEYS))}")
        base = str(position.get("scenario", "first-encounter"))
        state = scenario.build(self.data, base, position.get("options") or {})
        state.units = []
        # A named scenario's rules apply (its entry rules, 25.1, and terrain, 25.7; its
        # set-up zones and victory follow its name); its forces are not placed.
        state.flags = {k: v for k, v in state.flags.items()
                       if k in SCENARIO_RULE_FLAGS and position.get("scenario")}
        state.barrages = {}
        state.setup_sides = []
        state.turn = int(position.get("turn", 1))
        state.last_turn = int(position.get("last_turn", state.last_turn))
        phasing = str(position.get("phasing", position.get("to_act", "german")))
        first = str(position.get("first", phasing))  # who moves first each turn (5.0)
        state.order = [first, other(first)]
        state.player = state.order.index(phasing)
        state.phase = str(position.get("phase", "move1"))
        state.advanced = bool(position.get("advanced", True))
        state.terrain = {str(k): str(v) for k, v in position.get("terrain", {}).items()}
        if "roads" in position:
            state.roads = [str(h) for h in position["roads"]]
        if "map_size" in position:
            state.map_size = [int(v) for v in position["map_size"]]
        state.types = {str(k): dict(v) for k, v in position.get("types", {}).items()}
        for record in position.get("units", []):
            data = dict(record)
            data.setdefault("status", "on" if data.get("hex") else "waiting")
            state.units.append(Unit.model_validate(data))
        state.mines = {str(k): sorted(str(h) for h in v)
                       for k, v in position.get("mines", {}).items()}
        state.known_mines = {str(k): str(v) for k, v in position.get("known_mines", {}).items()}
        for side_name, allot in position.get("barrages", {}).items():
            state.barrages[side_name] = dict(allot)
        if position.get("marker"):
            state.marker = Marker.model_validate(position["marker"])
        state.flags.update(position.get("flags", {}))
        if position.get("blank_map"):
            state.flags["blank_map"] = True
        for side_name, policies in position.get("standing", {}).items():
            state.standing[side_name] = dict(policies)
        if position.get("setup"):
            state.phase = "setup"
            state.setup_sides = [str(s) for s in position["setup"]]
            state.flags["setup_units"] = [u.id for u in state.units if u.status == "waiting"
                                          and u.side in state.setup_sides]
            for side_name, rule in position.get("hidden", {}).items():
                state.flags.setdefault("hidden", {})[side_name] = {
                    "mode": "hidden", "terrain": list(rule.get("terrain", [])),
                    "unhidden": dict(rule.get("unhidden", {}))}
            for side_name, count in position.get("mine_count", {}).items():
                state.flags.setdefault("mines", {})[side_name] = {
                    "count": int(count), "in_setup_zone": False}
        for side_name, secret in position.get("secrets", {}).items():
            state.secrets[side_name] = SecretSet.model_validate(secret)
        ctx = self.ctx(state)
        for unit in state.units:  # validate types now, so a bad case fails at position
            ctx.type_of(unit)
        if state.phase == "defensive":
            state.pending = self._defensive_decision(ctx)
        return state

    def case_check(self, state: TanksState, expect: Mapping[str, Any]) -> list[str]:
        failures: list[str] = []
        unknown = set(expect) - CASE_UNIT_KEYS - CASE_OTHER_KEYS
        if unknown:
            failures.append(f"unknown expectation keys {sorted(unknown)}")
        if "unit" in expect:
            unit = state.unit(str(expect["unit"]))
            if unit is None:
                return [*failures, f"no unit {expect['unit']!r}"]
            checks = {
                "hex": unit.hex, "facing": unit.facing, "status": unit.status,
                "alive": unit.status != "destroyed", "hidden": unit.hidden,
                "disrupted": unit.no_fire or unit.no_move, "spent": unit.spent,
                "carrier": unit.carrier or "", "moved": unit.moved, "open": unit.move_open,
                "exited_edge": unit.exited_edge or "", "force": unit.force,
            }
            for key, actual in checks.items():
                if key in expect and actual != expect[key]:
                    failures.append(f"{unit.id}: {key} is {actual!r}, expected {expect[key]!r}")
        for key, actual in (("phase", state.phase), ("turn", state.turn),
                            ("phasing", state.phasing)):
            if key in expect and actual != expect[key]:
                failures.append(f"{key} is {actual!r}, expected {expect[key]!r}")
        if "mines_known" in expect and sorted(state.known_mines) != sorted(expect["mines_known"]):
            failures.append(f"known mines {sorted(state.known_mines)}, expected "
                            f"{sorted(expect['mines_known'])}")
        public = self.view(state, "public").model_dump_json()
        for text in _as_list(expect.get("public_lacks")):
            if text in public:
                failures.append(f"the public view shows {text!r}")
        for text in _as_list(expect.get("public_has")):
            if text not in public:
                failures.append(f"the public view lacks {text!r}")
        for side_name, texts in dict(expect.get("opponent_lacks", {})).items():
            seen = self.view(state, side_name).model_dump_json()
            for text in _as_list(texts):
                if text in seen:
                    failures.append(f"{side_name}'s view shows {text!r}")
        for wanted in _tables(expect.get("sees")):
            side_name = str(wanted.get("side", ""))
            if side_name not in (*SIDES, "public", "gm"):
                failures.append(f"sees: side {side_name!r} is none of {[*SIDES, 'public']}")
                continue
            view = self.view(state, side_name)
            assert isinstance(view, TanksView)
            failures += check_sees(state, view, wanted)
        if "commitment" in expect:
            has = {s for s, v in state.secrets.items() if v.commitment}
            if sorted(has) != sorted(_as_list(expect["commitment"])):
                failures.append(f"commitments from {sorted(has)}, expected {expect['commitment']}")
        acting = self.acting_side(state)
        legal = self.legal_orders(state, acting) if acting else []
        for text in _as_list(expect.get("legal_has")):
            if text not in legal:
                failures.append(f"{text!r} is not among the legal orders {legal[:20]}")
        for text in _as_list(expect.get("legal_lacks")):
            if text in legal:
                failures.append(f"{text!r} is among the legal orders")
        return failures

    def dump(self, state: TanksState) -> str:
        return json.dumps(state.model_dump(mode="json"), indent=1)


def _tables(value: Any) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]
