"""Turning Point: Stalingrad — the rules engine behind the kernel's Game contract."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from adjudicator.kernel.briefing import Briefing
from adjudicator.kernel.decisions import Decisions, Option, PendingDecision, StandingPolicy
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.kernel.game import Game, Original, original_of
from adjudicator.kernel.journal import retext
from adjudicator.kernel.names import short_ids
from adjudicator.kernel.orders import Order
from adjudicator.kernel.packs import PackError
from adjudicator.kernel.spec import Names
from adjudicator.kernel.views import View
from adjudicator.stalingrad import (
    advantage,
    artillery,
    bombardment,
    briefing,
    combat,
    crossing,
    data,
    losses,
    movement,
    optional,
    replacements,
    sequence,
    setup,
    special_moves,
    withdrawals,
)
from adjudicator.stalingrad.board import (
    Board,
    board_from_pack,
    board_from_spec,
)
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.last_action import LastAction, OrderRecord, fold, seen_by
from adjudicator.stalingrad.legal import (
    HINT,
    MAX_ORDERS,
    decision_listing,
    legal_entries,
    legal_listing,
    legal_orders,
)
from adjudicator.stalingrad.orders import (
    SPEC,
    Advantage,
    ArtilleryAnswer,
    Attack,
    Bid,
    Bombard,
    CardPick,
    Casualties,
    Cross,
    End,
    Fortify,
    Infiltrate,
    Move,
    Notation,
    Overflow,
    Pass,
    Recreate,
    Recross,
    Refit,
    Regroup,
    Reinforce,
    Replace,
    RetreatTo,
    RollRubble,
    Setup,
    SetupAuto,
    SetupDone,
    Tie,
)
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, SIDES
from adjudicator.stalingrad.state import Replacements, StalingradState, UnitState
from adjudicator.stalingrad.views import StalingradView, board_text, build_view

#: Orders whose procedure may roll a DR/dr other than an attack's (9.4): Rubble Entrance,
#: retreats, Infiltration, Fortification, crossings, the initial Rubble.
ROLLING_ORDERS = (Move, Regroup, Infiltrate, Fortify, Cross, Recross, Casualties, RetreatTo,
                  Overflow, RollRubble, Refit, Pass, End)  # Pass/End: a Dawn's Attrition


#: Every decision the rules give a side, declared beside the rule that raises it (what
#: answers it, how the answer applies, the standing policies that answer it), in the order
#: players read their standing orders.
DECISIONS: Decisions[Ctx] = Decisions(
    losses.CASUALTIES, losses.VOLUNTARY, losses.TIE, losses.RETREAT, losses.OVERFLOW,
    sequence.ADVANTAGE, combat.ARTILLERY, combat.CARD, withdrawals.WITHDRAWALS,
    crossing.REINFORCEMENTS)


class PackUnavailable(ValueError):
    """The data pack cannot be loaded (its :class:`PackError` in the message)."""


def _board_notation(board: Board, in_play: frozenset[str] = frozenset()) -> Notation:
    """The notation reading names against ``board``: an exact id of a unit in ``in_play``
    wins; a token the board does not know is kept as typed, and the rules refuse it with
    the board's suggestions."""

    def area(text: str) -> str:
        plain = text.strip()
        if plain.upper() in board.areas:
            return plain.upper()
        try:
            return board.resolve_area(plain)
        except RuleError:
            return plain.upper() if len(plain) == 1 else plain

    def unit(text: str) -> str:
        wanted = text.strip().lower()
        if wanted in in_play:
            return wanted
        try:
            return board.resolve_unit(text)
        except RuleError:
            return wanted

    return Notation(area, unit)


def _say_what_next(ctx: Ctx, fighting: bool) -> None:
    """After an attack is over — in this order, or in the decision (``fighting``: an attack
    was in progress) that ended it — with nothing pending, say what the side whose impulse
    it is does next: 'end' (8.1), or what must come before it (8.34)."""
    state = ctx.state
    if state.impulse is None or state.battle is not None or state.pending is not None or \
            not (fighting or any(e.kind == "attack-result" for e in ctx.events)):
        return
    side = state.impulse.side
    # Public, like the attack it follows: every frontend shows it in the same post.
    try:
        sequence.check_end(ctx, side)
    except RuleError as error:
        ctx.emit("next", f"the attack is over; before {side} may 'end': {error.message} "
                 f"({error.rule})", error.rule, side=side)
        return
    ctx.emit("next", f"the attack is over: {side} types 'end' to end the impulse once its "
             "units are done (8.1); 'legal' lists what else they may do", "8.1", side=side)


class StalingradGame(Game[StalingradState], name="stalingrad",
                     title="Turning Point: Stalingrad", sides=SIDES,
                     state_type=StalingradState, order_spec=SPEC):
    """The rules of Turning Point: Stalingrad, bound to a data pack."""

    def __init__(self, pack: Path | None = None) -> None:
        super().__init__(pack)
        self._local: dict[str, Board] = {}

    # ---- boards ------------------------------------------------------------------------

    @cached_property
    def pack_board(self) -> Board:
        try:
            pack = data.load_pack(self.pack)
        except PackError as error:
            raise PackUnavailable(f"the Stalingrad data pack does not load: {error}") from error
        return board_from_pack(pack)

    def has_pack(self) -> bool:
        try:
            self.pack_board  # noqa: B018
        except PackUnavailable:
            return False
        return True

    def board_for(self, state: StalingradState) -> Board:
        if state.local is None:
            keys = self.pack_board.playable.get(state.scenario)
            if keys is None:
                return self.pack_board
            board = self._local.get(state.scenario)
            if board is None:
                board = self._local[state.scenario] = self.pack_board.restricted(keys)
            return board
        key = json.dumps(state.local, sort_keys=True)
        board = self._local.get(key)
        if board is None:
            spec_map = state.local.get("map", {})
            pack = self.pack_board
            if spec_map == "pack":
                units = board_from_spec({}, state.local.get("units", []), pack.tables,
                                        pack.calendar).units
                board = pack.with_units(units)
            else:
                board = board_from_spec(spec_map, state.local.get("units", []), pack.tables,
                                        pack.calendar)
            if len(self._local) > 64:
                self._local.clear()
            self._local[key] = board
        return board

    # ---- setup ---------------------------------------------------------------------------

    def scenarios(self) -> dict[str, str]:
        """The pack's scenarios (scenarios.toml) in its order; the first is the default
        (``umpire play stalingrad``)."""
        return {key: spec.description or spec.name
                for key, spec in self.pack_board.scenarios.items()}

    def scenario_briefing(self, scenario: str) -> Briefing:
        """The scenario's briefing from the pack (:mod:`adjudicator.stalingrad.briefing`)."""
        return briefing.scenario_briefing(data.load_pack(self.pack), scenario, self.title)

    def options(self, scenario: str | None = None) -> dict[str, str]:
        """The optional rules ``scenario`` (default: the first) allows (22, 21.2...)."""
        name = scenario or next(iter(self.scenarios()))
        spec = self.pack_board.scenarios.get(name)
        return setup.allowed_options(spec) if spec is not None else {}

    def setup(self, scenario: str | None = None,
              options: Mapping[str, Any] | None = None) -> StalingradState:
        name = scenario or next(iter(self.scenarios()))
        if name not in self.scenarios():
            raise ValueError(f"unknown scenario {name!r}; choose from {list(self.scenarios())}")
        return setup.initial_state(self.pack_board, name, options or {})

    # ---- notation ------------------------------------------------------------------------

    @cached_property
    def notation(self) -> Notation:
        if self.has_pack():
            return _board_notation(self.pack_board)
        return Notation()

    def order_names(self) -> Names:
        return self.notation.names

    def order_names_in(self, state: StalingradState) -> Names:
        """A case's own counters and map name its units and Areas: ``stz``, a case's unit,
        is not the pack's ``r:stzmil`` it is a prefix of."""
        if state.local is None or not self.has_pack():
            return self.order_names()
        return _board_notation(self.board_for(state), frozenset(state.units)).names

    # ---- rules -------------------------------------------------------------------------

    def to_act(self, state: StalingradState) -> str | None:
        if state.phase == "bids":
            return optional.bidder(state.secrets)  # 22.11
        if state.phase == "setup":
            return RUSSIAN if RUSSIAN not in state.setup_done else GERMAN
        if state.phase == "rubble":
            return GERMAN
        return state.turn

    def private_input(self, state: StalingradState) -> str | None:
        """A side making its secret bid (22.11) or choosing its card (22.22)."""
        if state.result is not None:
            return None
        if state.phase == "bids":
            return optional.bidder(state.secrets)
        if state.pending is not None and state.pending.kind == "card":
            return state.pending.side
        return None

    def resolve(self, state: StalingradState, side: str, order: Order,
                dice: Dice) -> list[Event]:
        pending = state.pending
        if pending is not None and pending.kind == "advantage" \
                and pending.data.get("context") == "roll":
            return self._answer_reroll(state, side, order, dice)
        return self._run(state, side, order, dice, untouched=original_of(state))

    def _may_pause(self, state: StalingradState, order: Order) -> bool:
        """Could this order roll a DR/dr the Advantage may change (9.4)? Only then is the
        state kept aside to be put back while the holder decides."""
        if isinstance(order, ROLLING_ORDERS):
            return True
        # A Dawn inside the order may roll the Sawmill's reinforcement drs.
        return "reinforcement_max_dr" in state.options

    def _run(self, state: StalingradState, side: str, order: Order, dice: Dice,
             replay: list[tuple[int, ...]] | None = None, offer_from: int = 0,
             reroll_at: int | None = None, untouched: Original[StalingradState] | None = None
             ) -> list[Event]:
        # The state to put back if a roll pauses for the Advantage (9.4): the state as the
        # order found it. ``untouched`` is that state still (``apply``'s original): copied
        # only on a pause. Otherwise a copy is kept now.
        may_pause = self._may_pause(state, order)
        snapshot = state.copy_for_apply() if may_pause and untouched is None else None
        run = advantage.RerollDice(dice, replay, offer_from, reroll_at, enabled=may_pause)
        ctx = Ctx(self.board_for(state), state)
        # the impulse's record (last_action.py): where units were, and whether this order
        # belongs to an impulse (a decision at Dawn does not)
        before = {uid: unit.loc for uid, unit in state.units.items()}
        fighting = state.battle is not None  # an attack awaiting a decision
        in_impulse = state.phase == "play" and (state.impulse is not None
                                                or state.pending is None)
        try:
            self._dispatch(ctx, side, order, run)
            if state.phase == "play":
                artillery.sweep_observers(ctx)  # 8.3556
                bombardment.next_strike(ctx, run)  # 20.4
                _say_what_next(ctx, fighting)  # 8.1
        except advantage.RollPause as pause:
            if snapshot is None:
                assert untouched is not None
                snapshot = untouched.copy()
            for name in StalingradState.model_fields:
                setattr(state, name, getattr(snapshot, name))
            state.pending = advantage.reroll_decision(pause, self.format(order), side,
                                                     run.values, snapshot.pending)
            return [Event(kind="advantage-offer", rule="9.4",
                          text=f"{pause.roll.label}: {pause.roll.total} — {pause.holder} may "
                               "use the Advantage to reroll it",
                          data={"label": pause.roll.label, "total": pause.roll.total,
                                "holder": pause.holder, "loser": pause.loser})]
        # One form for unit names in what the rules say: the short name a player types.
        events = [retext(event, short_ids(event.text, ctx.board.short_unit))
                  for event in ctx.events]
        if in_impulse and state.last_action is not None:
            self._record(state, side, order, events, before)
        return events

    def _record(self, state: StalingradState, side: str, order: Order, events: list[Event],
                before: Mapping[str, str]) -> None:
        """Add one order of the impulse to the record the Views show as ``last_action``."""
        record = state.last_action
        assert record is not None
        if state.impulse is not None and state.impulse.origin:
            record.origin = state.impulse.origin
        record.orders.append(OrderRecord(side=side, text=self.format(order),
                                         audience=side if self.is_secret(order) else PUBLIC))
        fold(record, events, before)

    def _answer_reroll(self, state: StalingradState, side: str, order: Order,
                       dice: Dice) -> list[Event]:
        """The holder's answer to a 9.4 offer: re-run the interrupted order with the rolls
        before it replayed, keeping the roll or drawing it anew."""
        pending = state.pending
        assert pending is not None
        if not isinstance(order, Advantage) or order.action == "prolong":
            raise RuleError("9.4", f"answer the pending decision first: {pending.prompt}",
                            pending.option_orders())
        data = pending.data
        resume = data.get("resume")
        state.pending = PendingDecision.model_validate(resume) if resume else None
        values = [tuple(int(x) for x in v) for v in data["values"]]
        index = int(data["index"])
        original = self.parse(str(data["order"]))
        by = str(data["by"])
        ctx = Ctx(self.board_for(state), state)
        if order.action == "reroll":
            advantage.use_advantage(ctx, side, f"reroll the {data['label']} (9.4)")
            return [*ctx.events, *self._run(state, by, original, dice, values[:index], index,
                                            index)]
        ctx.emit("advantage-declined", f"{side} keeps the {data['label']}: {data['total']}",
                 "9.4", label=data["label"])
        return [*ctx.events, *self._run(state, by, original, dice, values[:index + 1],
                                        index + 1)]

    def _dispatch(self, ctx: Ctx, side: str, order: Order, dice: Dice) -> None:
        state = ctx.state
        if state.pending is not None:
            self._answer(ctx, side, order, dice)
            return
        if state.phase == "bids":
            if not isinstance(order, Bid):
                raise RuleError("22.11", "first each player bids for command of the Germans, "
                                "secretly: 'bid N' (Victory Points conceded; may be negative)",
                                ["bid 0"])
            optional.do_bid(ctx, side, order.value, dice)
            return
        if state.phase == "setup":
            if isinstance(order, Setup):
                setup.do_setup(ctx, side, order)
            elif isinstance(order, SetupDone):
                setup.do_setup_done(ctx, side)
            elif isinstance(order, SetupAuto):
                setup.do_setup_auto(ctx, side)
            else:
                raise RuleError("5.4", "during setup: 'setup UNITS in AREA', 'setup auto' or "
                                "'setup done'", ["setup auto", "setup done"])
            return
        if state.phase == "rubble":
            if not isinstance(order, RollRubble):
                raise RuleError("5.7", "the German rolls for the initial Rubble first",
                                ["rubble"])
            setup.do_rubble(ctx, dice)
            return
        imp = state.impulse
        record = state.last_action
        if imp is None or not (imp.acts or imp.attacked or imp.ferried or imp.recrossed) \
                or record is None or record.side != side:
            # this order starts the impulse (nothing has happened in it yet): a new record
            state.last_action = LastAction(side=side, date=state.date, day=state.day,
                                           box=state.box)
        match order:
            case Pass():
                sequence.do_pass(ctx, side, dice)
            case End():
                sequence.do_end(ctx, side, dice)
            case Move():
                movement.do_move(ctx, side, order, dice)
            case Regroup():
                special_moves.do_regroup(ctx, side, order, dice)
            case Attack():
                if bombardment.is_fire(ctx, order):
                    bombardment.do_fire(ctx, side, order, dice)
                else:
                    combat.do_attack(ctx, side, order, dice)
            case Bombard():
                bombardment.do_bombard(ctx, side, order, dice)
            case Refit():
                artillery.do_refit(ctx, side, order.unit, dice)
                sequence.finish(ctx, side, dice)  # 15.34: the Refit is the whole impulse
            case Replace():
                replacements.do_replace(ctx, side, order.units, order.area)
            case Recreate():
                withdrawals.do_recreate(ctx, side, order.units)
            case Infiltrate():
                special_moves.do_infiltrate(ctx, side, order, dice)
            case Fortify():
                special_moves.do_fortify(ctx, side, order, dice)
            case Cross():
                crossing.do_cross(ctx, side, order, dice)
            case Recross():
                crossing.do_recross(ctx, side, order, dice)
            case Advantage():
                if order.action == "prolong" and advantage.sept13_daylight(ctx):
                    raise RuleError("20.3", "the Advantage may not prolong the daylight of "
                                    "September 13")
                if state.advantage_used:
                    raise RuleError("9.5", "the Advantage has already been used this date")
                raise RuleError("9.2", "the Advantage is used right after the roll it changes "
                                "(the game asks the holder then)")
            case Casualties() | Tie() | RetreatTo() | Overflow() | Reinforce() \
                    | ArtilleryAnswer() | CardPick():
                raise RuleError("decision", f"no decision is pending: '{self.format(order)}' "
                                f"answers a question the game asks; it is {side}'s impulse "
                                "now", self._hint(state, side))
            case Setup() | SetupAuto() | SetupDone():
                raise RuleError("5.4", "the setup is over: the game is in play "
                                f"({ctx.board.date_label(state.date)}, "
                                f"{'day' if state.day else 'night'})",
                                self._hint(state, side))
            case RollRubble():
                raise RuleError("5.7", "the initial Rubble has already been rolled",
                                self._hint(state, side))
            case Bid():
                raise RuleError("22.11", "bids are made before the game begins")
            case _:
                raise RuleError("8.1", f"'{self.format(order)}' is not an impulse order",
                                self._hint(state, side))

    @staticmethod
    def _answer(ctx: Ctx, side: str, order: Order, dice: Dice) -> None:
        pending = ctx.state.pending
        assert pending is not None
        DECISIONS.answer(ctx, pending, side, order, dice)

    # ---- queries -------------------------------------------------------------------------

    def legal_orders(self, state: StalingradState, side: str) -> list[str]:
        if state.result is not None or self.acting_side(state) != side:
            return []
        if state.pending is not None:
            return state.pending.option_orders()
        # On a copy: the rules' context opens the impulse record as it reads it, and a
        # query must never change the state it is asked about (it would no longer hash to
        # what the log recorded).
        return legal_orders(Ctx(self.board_for(state), state.copy_for_apply()), side)

    def _hint(self, state: StalingradState, side: str) -> list[str]:
        """The first legal orders, for a refusal to name (the moves, found last, only when
        few other orders come first)."""
        if self.acting_side(state) != side:
            return []
        ctx = Ctx(self.board_for(state), state.copy_for_apply())
        return [order for order, _ in legal_entries(ctx, side, HINT)][:HINT]

    def legal_options(self, state: StalingradState, side: str, complete: bool = False
                      ) -> list[Option]:
        """The legal orders with their cost: a move once per destination, "3 MF";
        ``complete``: every order the rules accept, in compact families
        (:func:`~adjudicator.stalingrad.legal.legal_listing`, a decision's answers by
        :func:`~adjudicator.stalingrad.legal.decision_listing`)."""
        if state.result is not None or self.acting_side(state) != side:
            return []
        ctx = Ctx(self.board_for(state), state.copy_for_apply())
        if state.pending is not None:
            if complete:
                return list(decision_listing(ctx, state.pending))
            return super().legal_options(state, side)
        if complete:
            return list(legal_listing(ctx, side))
        return [Option(order=order, label=label)
                for order, label in legal_entries(ctx, side, MAX_ORDERS)]

    def short_unit(self, state: StalingradState, uid: str) -> str:
        """A unit's designation ("i/103") when only it has it, else its id."""
        return self.board_for(state).short_unit(uid)

    def place_names(self) -> Mapping[str, str]:
        """Each Area's and Zone's printed name (3.2) from the map pack, by key."""
        return {key: area.name for key, area in self.pack_board.areas.items() if area.name}

    def name_resolvers(self, state: StalingradState, side: str
                       ) -> dict[str, Callable[[str], str]]:
        board = self.board_for(state)
        return {"unit": board.resolve_unit, "place": board.resolve_area}

    def make_view(self, state: StalingradState, viewer: str) -> View:
        return build_view(self.board_for(state), state, viewer, self.name)

    def view_key(self, state: StalingradState, viewer: str) -> Hashable:
        """Views differ between viewers only in what ``last_action`` shows them."""
        return seen_by(state.last_action, viewer)

    def board_text(self, view: View) -> str:
        assert isinstance(view, StalingradView)
        return board_text(view)

    # ---- standing orders -------------------------------------------------------------------

    def standing_policies(self) -> list[StandingPolicy]:
        return DECISIONS.policies()

    def standing_answer(self, state: StalingradState, decision: PendingDecision,
                        policy: str) -> str | None:
        return DECISIONS.standing_answer(Ctx(self.board_for(state), state), decision, policy)

    # ---- conformance -------------------------------------------------------------------------

    def case_position(self, position: Mapping[str, Any]) -> StalingradState:
        return case_state(self, position)

    def case_check(self, state: StalingradState, expect: Mapping[str, Any]) -> list[str]:
        return case_check(self.board_for(state), state, expect)


# ---- conformance adapters --------------------------------------------------------------------


def _date(board: Board, value: Any) -> int:
    if isinstance(value, int):
        return value
    text = str(value).strip()
    try:
        return board.parse_date_code(text)
    except ValueError:
        month, day = text.split()
        return board.parse_date_code(month[0] + day)


#: The position keys a case starting from its scenario (``start = true``) may give.
START_KEYS = {"start", "scenario", "options", "standing"}


def case_state(game: StalingradGame, position: Mapping[str, Any]) -> StalingradState:
    """A state from a case's ``[position]``: its own ``map`` and ``units`` (or the pack);
    with ``start = true``, the chosen scenario's first position as ``umpire play`` sets it
    up (5.1-5.7), with only the case's ``standing`` orders over it."""
    units = list(position.get("units", []))
    options = dict(position.get("options", {}))
    if position.get("start"):
        extra = set(position) - START_KEYS
        if extra:
            raise ValueError(f"position keys {sorted(extra)} cannot be used with start = true "
                             f"(the scenario sets the position up); allowed: "
                             f"{', '.join(sorted(START_KEYS))}")
        started = game.setup(position.get("scenario"), options)
        for side, policies in position.get("standing", {}).items():
            started.standing[str(side)] = {str(k): str(v) for k, v in policies.items()}
        return started
    if "map" in position:
        # ``map = "pack"``: the shipped pack's Areas and adjacency, the case's own counters.
        spec_map = position["map"]
        local: dict[str, Any] | None = {
            "map": "pack" if spec_map == "pack" else dict(spec_map), "units": [
            {k: v for k, v in u.items()
             if k not in ("area", "fresh", "duration", "isolation", "marker")}
            for u in units]}
    else:
        local = None
    state = StalingradState(local=local, options=options,
                            phase=position.get("phase", "play"))
    board = game.board_for(state) if local is not None else game.pack_board
    state.date = _date(board, position.get("date", 0))
    state.day = bool(position.get("day", True))
    state.box = int(position.get("box", 1))
    state.turn = str(position.get("to_act", GERMAN))
    state.advantage = str(position.get("advantage", GERMAN))
    state.advantage_start = str(position.get("advantage_start", state.advantage))
    state.advantage_used = bool(position.get("advantage_used", False))
    # Cases are past September 13's fixed daylight impulses unless they say otherwise.
    state.german_impulses_today = int(position.get(
        "german_impulses_today", board.tables.constants.sept13_german_day_impulses))
    state.control = {k: setup.initial_control(a) for k, a in board.areas.items()}
    state.control.update({str(k): str(v) for k, v in position.get("control", {}).items()})
    state.rubble = {str(k): int(v) for k, v in position.get("rubble", {}).items()}
    state.sunset_control = {str(k): str(v) for k, v in position.get("sunset_control",
                                                                       {}).items()}
    for uid in board.units:
        state.units[uid] = UnitState(loc="pool")
    for spec in units:
        uid = str(spec["id"]).lower()
        fresh = bool(spec.get("fresh", True))
        duration = spec.get("duration")
        # duration 0: Spent with no Duration marker (a FAG awaiting Refit, 15.34)
        recover = None if fresh or duration == 0 else state.date + int(duration or 1)
        state.units[uid] = UnitState(loc=str(spec.get("area", "pool")), fresh=fresh,
                                     recover=recover,
                                     marker=bool(spec.get("marker", int(duration or 1) > 1)),
                                     isolation=int(spec.get("isolation", 0)))
    for side, cards in dict(position.get("decks", {})).items():
        state.decks[str(side)] = sorted(int(c) for c in cards)  # 22.21
    if "replacements" in position:
        state.replacements = Replacements.model_validate(dict(position["replacements"]))
    for side, policies in position.get("standing", {}).items():
        state.standing[str(side)] = {str(k): str(v) for k, v in policies.items()}
    return state


CHECK_KEYS = {"unit", "area", "fresh", "alive", "duration", "mf", "control", "rubble", "date",
              "day", "box", "turn", "advantage", "advantage_used", "units_in", "done",
              "isolation", "replacements"}


def case_check(board: Board, state: StalingradState, expect: Mapping[str, Any]) -> list[str]:
    failures: list[str] = []
    unknown = set(expect) - CHECK_KEYS
    if unknown:
        failures.append(f"unknown expectation keys {sorted(unknown)}")
    if "unit" in expect:
        uid = str(expect["unit"]).lower()
        unit = state.units.get(uid)
        if unit is None:
            return [*failures, f"no unit {uid}"]
        alive = unit.loc != "dead"
        if "alive" in expect and alive != expect["alive"]:
            failures.append(f"{uid}: alive={alive}, expected {expect['alive']}")
        if "area" in expect and unit.loc != str(expect["area"]):
            failures.append(f"{uid}: in {unit.loc}, expected {expect['area']}")
        if "fresh" in expect and unit.fresh != expect["fresh"]:
            failures.append(f"{uid}: fresh={unit.fresh}, expected {expect['fresh']}")
        if "isolation" in expect and unit.isolation != expect["isolation"]:
            failures.append(f"{uid}: Isolation {unit.isolation}, expected {expect['isolation']}")
        if "duration" in expect:
            got = None if unit.recover is None else unit.recover - state.date
            if got != expect["duration"]:
                failures.append(f"{uid}: Duration {got}, expected {expect['duration']}")
        if "mf" in expect or "done" in expect:
            act = state.impulse.acts.get(uid) if state.impulse else None
            if "mf" in expect and (act.mf if act else 0) != expect["mf"]:
                failures.append(f"{uid}: {act.mf if act else 0} MF used, expected "
                                f"{expect['mf']}")
            if "done" in expect and bool(act and act.done) != expect["done"]:
                failures.append(f"{uid}: done={bool(act and act.done)}, expected "
                                f"{expect['done']}")
    for key, side in dict(expect.get("control", {})).items():
        if state.control.get(str(key)) != side:
            failures.append(f"control of {key}: {state.control.get(str(key))}, expected {side}")
    record = state.replacements
    have = {"earned": record.earned, "spent": record.spent, "stopped": record.stopped,
            "available": 0 if record.stopped else record.earned - record.spent}
    for key, value in dict(expect.get("replacements", {})).items():
        if have.get(str(key)) != value:
            failures.append(f"Armor replacements {key}: {have.get(str(key))}, expected {value}")
    for key, level in dict(expect.get("rubble", {})).items():
        if state.rubble.get(str(key), 0) != level:
            failures.append(f"Rubble in {key}: {state.rubble.get(str(key), 0)}, expected {level}")
    for key, ids in dict(expect.get("units_in", {})).items():
        here = sorted(u for u, s in state.units.items() if s.loc == str(key))
        if here != sorted(str(i).lower() for i in ids):
            failures.append(f"units in {key}: {here}, expected {sorted(ids)}")
    simple: dict[str, object] = {
        "date": state.date, "day": state.day, "box": state.box, "turn": state.turn,
        "advantage": state.advantage, "advantage_used": state.advantage_used}
    for key, value in simple.items():
        if key in expect:
            wanted = _date(board, expect[key]) if key == "date" else expect[key]
            if value != wanted:
                shown = board.date_label(state.date) if key == "date" else value
                failures.append(f"{key}: {shown}, expected {expect[key]}")
    return failures
