"""The contract every game implements, and the kernel's half of it.

A game subclasses :class:`Game` and fills in the abstract hooks (setup, notation,
``resolve``, views, legal orders, standing-order policies, conformance adapters). The
kernel's concrete methods give every game the same behaviour for the things that must
not differ between games:

* ``apply`` works on a copy (a :class:`RuleError` leaves the state untouched), refuses
  orders from a side that is not to act, handles ``standing`` orders, and lets standing
  orders answer pending decisions at once;
* :func:`apply_lines` applies a multi-line message in order and stops at the first pending
  decision or error: the one loop, which the service's submissions run;
* ``view`` fills the common view fields and checks the viewer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from adjudicator.kernel.briefing import Briefing
from adjudicator.kernel.decisions import Option, PendingDecision, SetupGuide, StandingPolicy
from adjudicator.kernel.dice import Dice, Roll
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.kernel.journal import ROLL_MARKS, RollMarks
from adjudicator.kernel.listed import complete_orders
from adjudicator.kernel.orders import (
    Order,
    Resign,
    SetStanding,
    check_line,
    words,
)
from adjudicator.kernel.secrecy import Secrecy, secret_heads, unreadable_secrecy
from adjudicator.kernel.shared_orders import SHARED_SPEC, shared_verb
from adjudicator.kernel.spec import Names, OrderSpec, formats_kept
from adjudicator.kernel.state import GameState
from adjudicator.kernel.views import View, check_viewer, pending_for

S = TypeVar("S", bound=GameState)

#: How many decisions standing orders may answer in a row before the kernel stops
#: (a guard against a policy that keeps creating the decision it answers).
MAX_AUTO_ANSWERS = 200


class Outcome(BaseModel, Generic[S]):
    """The result of one order: the new state, what happened, and what the game waits for."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    state: S
    events: list[Event]
    rolls: list[Roll]
    applied: list[str]

    @property
    def pending(self) -> PendingDecision | None:
        return self.state.pending


#: While a game's ``resolve`` of an order runs on the state ``apply`` works on: (that state,
#: the untouched one it was copied from, or None when ``apply`` was told the caller owns the
#: state and it works on it in place). Per thread and task.
_APPLYING: ContextVar[tuple[GameState, GameState | None] | None] = ContextVar(
    "applying", default=None)


class OriginalNeeded(Exception):
    """An order applied in place (``apply(..., owned=True)``) needed the state as it found
    it, which is gone: apply it again to that state, with a copy (``owned=False``)."""


class Original(Generic[S]):
    """The state an order found, kept aside by ``apply`` (see :func:`original_of`)."""

    def __init__(self, state: S | None) -> None:
        self._state = state

    def copy(self) -> S:
        """A private copy of it; :class:`OriginalNeeded` if ``apply`` works in place."""
        if self._state is None:
            raise OriginalNeeded
        return self._state.copy_for_apply()


def original_of(work: S) -> Original[S] | None:
    """The state as the order found it, while the game's ``resolve`` of the order runs on
    ``work`` (standing orders' answers excepted); None otherwise.

    A game that may have to put the state back as it was before the order (Turning Point:
    Stalingrad's Advantage reroll pause, 9.4) then copies the original only if it must,
    instead of copying ``work`` before every order that might."""
    current = _APPLYING.get()
    if current is None or current[0] is not work:
        return None
    original: S | None = current[1]  # type: ignore[assignment]
    return Original(original)


def order_lines(text: str) -> list[str]:
    """The order lines of a message: blank lines and '#' comments dropped."""
    return [line.strip() for line in text.splitlines() if words(line)]


class Game(ABC, Generic[S]):
    """One game's rules, bound to one data pack.

    A game states what it is once, as class arguments (or as class attributes)::

        class DuelGame(Game[DuelState], name="duel", title="Duel", sides=("red", "blue"),
                       state_type=DuelState, order_spec=SPEC): ...
    """

    name: ClassVar[str]
    title: ClassVar[str]
    sides: ClassVar[tuple[str, ...]]
    state_type: ClassVar[type[GameState]]
    #: The game's order notation, declared once (:mod:`adjudicator.kernel.spec`): parsing,
    #: formatting, help and the frontends' commands come from it. Every game declares one.
    order_spec: ClassVar[OrderSpec]

    def __init_subclass__(cls, *, name: str | None = None, title: str | None = None,
                          sides: tuple[str, ...] | None = None,
                          state_type: type[GameState] | None = None,
                          order_spec: OrderSpec | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        given = {"name": name, "title": title, "sides": sides, "state_type": state_type,
                 "order_spec": order_spec}
        for key, value in given.items():
            if value is not None:
                setattr(cls, key, value)

    def __init__(self, pack: Path | None = None) -> None:
        """Bind the rules to a data pack folder (None: the shipped pack)."""
        if not isinstance(getattr(type(self), "order_spec", None), OrderSpec):
            raise TypeError(f"{type(self).__name__} declares no order_spec")
        self.pack = pack

    # ---- hooks a game implements -------------------------------------------------------

    @abstractmethod
    def scenarios(self) -> dict[str, str]:
        """Scenario name -> one-line description. The first is the default."""

    @abstractmethod
    def setup(self, scenario: str | None = None, options: Mapping[str, Any] | None = None) -> S:
        """The starting state. Deterministic: rolls needed at setup happen as orders."""

    def scenario_briefing(self, scenario: str) -> Briefing:
        """The briefing of the scenario ``scenario`` (a key of :meth:`scenarios`), built
        from the game's data pack. By default only the scenario's one-line description."""
        return Briefing(game=self.title, scenario=scenario, title=scenario, rule="scenario",
                        summary=self.scenarios()[scenario], length="as the rules say",
                        goals={}, victory=[], special=[], features=[])

    def briefing(self, scenario: str | None = None) -> Briefing:
        """What a player reads before ``scenario`` (None: the default, the first) starts:
        sides, length, victory, special rules, features. It comes from the scenario, never
        from a game's state, so it holds no secret. An unknown scenario is a
        :class:`RuleError` listing the known ones."""
        known = list(self.scenarios())
        key = scenario or known[0]
        if key not in known:
            raise RuleError("scenario", f"unknown scenario {key!r}", known)
        return self.scenario_briefing(key)

    def options(self, scenario: str | None = None) -> dict[str, str]:
        """The optional rules a new game of ``scenario`` may be created with: option key ->
        what it does (``umpire play GAME --option KEY=VALUE``). None by default."""
        return {}

    def order_names(self) -> Names:
        """The name resolvers the notation reads units, Areas… with (none: plain keys)."""
        return {}

    def parse_game_order(self, text: str) -> Order:
        """Parse one line of this game's notation (forgiving) into an order model."""
        return self.order_spec.parse(text, self.order_names())

    def order_names_in(self, state: S) -> Names:
        """The name resolvers for an order given in ``state``: the game's own board's
        (a conformance case's local counters), default the pack's (:meth:`order_names`)."""
        return self.order_names()

    def format_game_order(self, order: Order) -> str:
        """The canonical text of an order."""
        return self.order_spec.format(order)

    @abstractmethod
    def to_act(self, state: S) -> str | None:
        """The side whose turn it is, ignoring any pending decision; None when over."""

    @abstractmethod
    def resolve(self, state: S, side: str, order: Order, dice: Dice) -> list[Event]:
        """Carry out ``order`` for ``side`` on ``state`` (a private copy: mutate it).

        Raise :class:`RuleError` for anything illegal. Set ``state.pending`` when the
        rules hand a choice to a player; clear it when the answering order is applied.
        """

    @abstractmethod
    def make_view(self, state: S, viewer: str) -> View:
        """What ``viewer`` may know. Must never copy a secret into another side's view."""

    @abstractmethod
    def legal_orders(self, state: S, side: str) -> list[str]:
        """Canonical texts of (a useful sample of) the orders ``side`` may give now."""

    def legal_options(self, state: S, side: str, complete: bool = False) -> list[Option]:
        """:meth:`legal_orders` with a short label each for listings (a move's cost, a
        shot's odds); a pending decision's own options. ``complete``: every order the
        rules accept, compactly — entries may be :class:`~adjudicator.kernel.listed.
        Listed` families (any of some units, any path), where :meth:`legal_orders` gives a
        sample of single orders."""
        if state.pending is not None and self.acting_side(state) == side:
            return list(state.pending.options)
        return [Option(order=order) for order in self.legal_orders(state, side)]

    def complete_orders(self, state: S, side: str) -> list[str]:
        """Every legal order as autocomplete searches it: each family of
        :meth:`legal_options` (``complete=True``) by its own order, its whole stack and
        each of its units alone, each value it allows (:func:`~adjudicator.kernel.listed.
        complete_orders`). The entries' orders are read back as the listing wrote them
        (:func:`~adjudicator.kernel.spec.formats_kept`), not parsed again."""
        with formats_kept() as written:
            entries = self.legal_options(state, side, complete=True)

        def read(text: str) -> Order:
            order = written.get(text)
            return order if order is not None else self.parse(text)

        return complete_orders(entries, read, self.format)

    def listing_form(self, order: Order) -> Order:
        """``order`` as a complete listing compares it (``kernel.listed.covered``): a game
        whose orders may name one destination in several ways (a path, or ``to HEX``)
        writes them one way here. By default the order itself."""
        return order

    def standing_policies(self) -> list[StandingPolicy]:
        """Policies a side may set for kinds of decisions."""
        return []

    def standing_answer(self, state: S, decision: PendingDecision, policy: str) -> str | None:
        """The order text a policy gives for ``decision``; None to ask the player."""
        return None

    @abstractmethod
    def board_text(self, view: View) -> str:
        """A compact text board for the console, built from a view."""

    @abstractmethod
    def case_position(self, position: Mapping[str, Any]) -> S:
        """A state from a conformance case's ``[position]`` table."""

    @abstractmethod
    def case_check(self, state: S, expect: Mapping[str, Any]) -> list[str]:
        """Failure messages for a conformance ``[[expect]]`` table's game-specific keys."""

    # ---- kernel behaviour shared by every game -----------------------------------------

    def parse(self, text: str) -> Order:
        """An order from its text: the shared orders (``standing``, ``resign``) from the
        kernel's :data:`~adjudicator.kernel.shared_orders.SHARED_SPEC`, the rest from the
        game's ``order_spec``."""
        check_line(text)
        if shared_verb(text):
            return SHARED_SPEC.parse(text)
        return self.parse_game_order(text)

    def parse_in(self, state: S, text: str) -> Order:
        """:meth:`parse` with names read against ``state``'s own board
        (:meth:`order_names_in`): an exact id of a unit in play wins over a prefix of
        another counter of the game."""
        parts = words(text)
        if parts and parts[0].lower() in ("standing", "resign"):
            return self.parse(text)
        check_line(text)
        return self.order_spec.parse(text, self.order_names_in(state))

    def format(self, order: Order) -> str:
        if isinstance(order, (SetStanding, Resign)):
            return SHARED_SPEC.format(order)
        return self.format_game_order(order)

    def secrecy(self, order: Order | str, state: S | None = None,
                side: str | None = None) -> Secrecy:
        """The one answer to "is this order secret?" (:mod:`adjudicator.kernel.secrecy`).

        ``order``: an order or a line of text (unreadable text is secret when it could be
        a mistyped secret verb). The order spec's ``secret`` verbs are; standing orders
        are their sender's (:attr:`Secrecy.SENDER`); given ``state`` and the ``side``
        giving it, the position may make an order secret too
        (:meth:`secret_in_position`)."""
        if isinstance(order, str):
            text = order
            try:
                order = self.parse(text)
            except (RuleError, ValueError):
                return unreadable_secrecy(self.order_spec, text)
        if isinstance(order, SetStanding):
            return Secrecy.SENDER
        if self.order_spec.declares_secret(order) or (
                state is not None and side is not None
                and self.secret_in_position(state, side, order)):
            return Secrecy.SECRET
        return Secrecy.PUBLIC

    def secret_in_position(self, state: S, side: str, order: Order) -> bool:
        """The game's hook for :meth:`secrecy`: whether the position makes ``order``,
        given by ``side``, secret. By default every order a side gives while it enters
        secrets (:meth:`private_input`)."""
        return self.private_input(state) == side

    def is_secret(self, order: Order) -> bool:
        """Whether an order's text is hidden from others (:meth:`secrecy`)."""
        return self.secrecy(order).hidden

    def secret_heads(self) -> frozenset[str]:
        """The first words (lower case) of every form of the order spec's secret verbs: a
        line led by another of the spec's verb words is no secret order by its verb alone
        (what :meth:`secrecy` answers without a position), so a caller sorting many orders
        need not read those."""
        return secret_heads(self.order_spec)

    def help(self, verb: str | None = None) -> str:
        """Every order in one line each, or one verb in full (forms, rules, examples)."""
        if verb is not None and shared_verb(verb):
            return SHARED_SPEC.help(verb)
        text = self.order_spec.help(verb)
        return text if verb is not None else f"{text}\n{SHARED_SPEC.help()}"

    def is_secret_text(self, text: str) -> bool:
        """:meth:`is_secret` for a line of text (:meth:`secrecy`)."""
        return self.secrecy(text).hidden

    def private_input(self, state: S) -> str | None:
        """The side now entering secrets (hidden set-up, mines), if any.

        While it returns a side, frontends take that side's lines privately (a DM, a
        console prompt without echo) and show its events only to it.
        """
        return None

    def setup_guide(self, state: S, side: str) -> SetupGuide | None:
        """While ``side`` enters a secret set-up: what it has left to place, where, and
        what ``done`` would forfeit (None: no such set-up now)."""
        return None

    def short_unit(self, state: S, uid: str) -> str:
        """The name listings show for a unit: its shortest unique name (default: its id)."""
        return uid

    def place_names(self) -> Mapping[str, str]:
        """The printed name of each named place, by key, as the game's pack gives it (a
        Turning Point: Stalingrad Area: ``"3"`` -> ``"Yellow House"``), for frontends that
        show a key with its name; places without a name are left out (default: none)."""
        return {}

    def name_resolvers(self, state: S, side: str) -> dict[str, Callable[[str], str]]:
        """Resolvers frontends use to read names in filters and completion: ``unit`` (a
        unit ``side`` may name) and ``place`` (an Area, Zone or hex); each returns the key
        or raises :class:`NotationError` with the candidates or a "did you mean"."""
        return {}

    def is_private(self, state: S, side: str, order: Order) -> bool:
        """Whether ``order``, given by ``side`` in ``state``, is hidden from others
        (:meth:`secrecy` with the position)."""
        return self.secrecy(order, state, side).hidden

    # ---- hooks the service offers games (each with the behaviour of a game without it) ----

    def undo_reveals(self, public_events: list[Event]) -> list[str]:
        """What an order's public events disclosed that an undo could not take back (a
        hidden unit spotted, a minefield found): the service refuses a player's undo when
        this names anything. Nothing by default."""
        return []

    def gm_operations(self) -> Mapping[str, type[BaseModel]]:
        """The GM's edits of the state: name -> the pydantic model of its arguments (the
        service validates a GM's input against it). None by default."""
        return {}

    def gm_edit(self, state: S, name: str, args: BaseModel) -> list[Event]:
        """Apply one validated GM edit to ``state`` (a private copy: mutate it); events with
        audiences (a hidden unit moved by the GM is told to its side and the GM only).
        Raise :class:`RuleError` when the edit does not fit the data."""
        raise RuleError("override", f"{self.name} has no GM edits")

    def deadline_order(self, state: S, side: str) -> str | None:
        """The order Umpire plays for ``side`` when its time runs out and it owes no
        decision (a decision's default answers that); None leaves it to the GM. By
        default ``pass`` when that is legal."""
        return "pass" if "pass" in self.legal_orders(state, side) else None

    def acting_side(self, state: S) -> str | None:
        """Who must act now: the side owing a decision, else the side to move."""
        if state.result is not None:
            return None
        if state.pending is not None:
            return state.pending.side
        return self.to_act(state)

    def load_state(self, data: bytes) -> S:
        return self.state_type.model_validate_json(data)  # type: ignore[return-value]

    def apply(self, state: S, side: str, order: Order, dice: Dice, *,
              owned: bool = False) -> Outcome[S]:
        """Apply one order. Pure: ``state`` is never modified, dice are the only input.

        ``owned``: the caller owns ``state`` and will not use it again (a replay of the log):
        the order is applied to it in place, without the protective copy. Then a
        :class:`RuleError` leaves ``state`` half-changed, and :class:`OriginalNeeded` asks
        for the order to be applied again, with a copy, to the state as it was."""
        if side not in self.sides:
            raise RuleError("sides", f"unknown side {side!r}", list(self.sides))
        work = state if owned else state.copy_for_apply()
        first_roll = len(dice.rolls)
        applied = [self.format(order)]
        marks = RollMarks(dice)
        marking = ROLL_MARKS.set(marks)
        try:
            events = self._apply_order(work, state, side, order, dice, applied, owned)
        finally:
            ROLL_MARKS.reset(marking)
        rolls = list(dice.rolls[first_roll:])
        events = _with_dice_lines(events, self._roll_events(rolls), marks, first_roll)
        return Outcome[S](state=work, events=events, rolls=rolls, applied=applied)

    def _apply_order(self, work: S, state: S, side: str, order: Order, dice: Dice,
                     applied: list[str], owned: bool) -> list[Event]:
        events: list[Event] = []
        if isinstance(order, SetStanding):
            events.append(self._set_standing(work, side, order))
        elif isinstance(order, Resign):
            events.append(self._resign(work, side))
        else:
            self._check_turn(work, side)
            applying = _APPLYING.set((work, None if owned else state))
            try:
                events.extend(self.resolve(work, side, order, dice))
            finally:
                _APPLYING.reset(applying)
            events.extend(self._answer_by_standing_orders(work, dice, applied))
        return events

    def expand(self, state: S, side: str, order: Order) -> list[Order] | None:
        """The ordinary orders a shorthand ``order`` stands for (Stalin's Tanks' ``enter
        all``, 6.5), read on ``state``; None when ``order`` is an ordinary order itself.
        :func:`apply_lines` applies and stores each in turn as if typed; a
        :class:`RuleError` refuses the line. The default: no shorthands."""
        return None

    def apply_text(self, state: S, side: str, text: str, dice: Dice, *,
                   owned: bool = False) -> Outcome[S]:
        return self.apply(state, side, self.parse_in(state, text), dice, owned=owned)

    def view(self, state: S, viewer: str) -> View:
        check_viewer(viewer, self.sides)
        return self._finish_view(self.make_view(state, viewer), state, viewer)

    def views(self, state: S) -> Views[S]:
        """The views of ``state`` for any viewers, each built when first asked for; viewers
        with the same :meth:`view_key` share one :meth:`make_view`."""
        return Views(self, state)

    def view_key(self, state: S, viewer: str) -> Hashable:
        """Viewers with equal keys get equal :meth:`make_view` results (apart from the
        ``viewer`` field), so one build serves them all. The default shares nothing; a
        game whose views differ only in some parts returns what those parts depend on."""
        return viewer

    def _finish_view(self, view: View, state: S, viewer: str) -> View:
        """The kernel's fields of a view: who acts, the decision as ``viewer`` may see it,
        the result and the viewer's own standing orders."""
        view.to_act = self.acting_side(state)
        view.pending = pending_for(state.pending, viewer)
        view.result = state.result
        view.standing = dict(state.standing.get(viewer, {})) if viewer in self.sides else {}
        return view

    def default_policy(self, kind: str) -> str | None:
        """The policy answering ``kind`` for a side that has set none (see
        :class:`StandingPolicy`), or None: the side is asked."""
        return next((p.policy for p in self.policies_for(kind) if p.default), None)

    def policies_for(self, kind: str) -> list[StandingPolicy]:
        return [policy for policy in self.standing_policies() if policy.kind == kind]

    # ---- internals ----------------------------------------------------------------------

    def _check_turn(self, state: S, side: str) -> None:
        if state.result is not None:
            raise RuleError("over", f"the game is over: {state.result}")
        if state.pending is not None and state.pending.side != side:
            raise RuleError(
                state.pending.rule or "decision",
                f"waiting for {state.pending.side} to decide: {state.pending.prompt}",
            )
        to_act = self.acting_side(state)
        if to_act is not None and to_act != side:
            raise RuleError("turn", f"it is {to_act}'s turn, not {side}'s")

    def _set_standing(self, state: S, side: str, order: SetStanding) -> Event:
        kinds = sorted({policy.kind for policy in self.standing_policies()})
        if order.kind not in kinds:
            raise RuleError("standing", f"no standing orders for {order.kind!r}", kinds)
        mine = state.standing.setdefault(side, {})
        if order.policy is None:
            mine.pop(order.kind, None)
            if not mine:
                state.standing.pop(side)
            return Event(kind="standing", text=f"{side}: standing order for {order.kind} cleared",
                         audience=side)
        names = [policy.policy for policy in self.policies_for(order.kind)]
        if order.policy not in names:
            raise RuleError("standing", f"unknown policy {order.policy!r} for {order.kind}",
                            [*names, "off"])
        mine[order.kind] = order.policy
        return Event(kind="standing", text=f"{side}: standing order {order.kind} = {order.policy}",
                     audience=side)

    def _resign(self, state: S, side: str) -> Event:
        """A side gives the game up, on its turn or not; the other side wins (two sides)."""
        if state.result is not None:
            raise RuleError("over", f"the game is over: {state.result}")
        others = [s for s in self.sides if s != side]
        state.result = (f"{side} resigns; {others[0]} wins" if len(others) == 1
                        else f"{side} resigns")
        state.pending = None
        return Event(kind="resign", text=state.result, audience=PUBLIC)

    def _answer_by_standing_orders(self, state: S, dice: Dice, applied: list[str]) -> list[Event]:
        events: list[Event] = []
        for _ in range(MAX_AUTO_ANSWERS):
            decision = state.pending
            if decision is None:
                return events
            policy = state.standing.get(decision.side, {}).get(decision.kind)
            by_default = policy is None
            if policy is None:
                policy = self.default_policy(decision.kind)
                if policy is None:
                    return events
            answer = self.standing_answer(state, decision, policy)
            if answer is None:
                return events
            order = self.parse(answer)
            how = (f"by default (standing {decision.kind} {policy}; 'standing "
                   f"{decision.kind} ask' to be asked)" if by_default else "by standing order")
            events.append(Event(
                kind="standing-answer",
                text=f"{decision.side} answers {how}: {self.format(order)}",
                audience=decision.side,
                data={"decision": decision.kind, "policy": policy, "default": by_default},
            ))
            events.extend(self.resolve(state, decision.side, order, dice))
            applied.append(self.format(order))
        raise RuleError("standing", "standing orders kept answering decisions; stopped")

    @staticmethod
    def _roll_events(rolls: list[Roll]) -> list[Event]:
        return [
            Event(
                kind="roll",
                text=f"{roll.label}: {' + '.join(map(str, roll.values))}"
                + (f" = {roll.total}" if len(roll.values) > 1 else ""),
                audience=roll.audience,
                data={"index": roll.index, "branch": roll.branch, "label": roll.label,
                      "values": list(roll.values)},
            )
            for roll in rolls
        ]



def _with_dice_lines(events: list[Event], dice_lines: list[Event], marks: RollMarks,
                     first_roll: int) -> list[Event]:
    """``events`` with each dice line placed just before the first event emitted after
    the roll (so after the action line it belongs to); the rest at the end."""
    if not dice_lines:
        return events
    out: list[Event] = []
    placed = 0
    for event in events:
        before = marks.rolls_before(event)
        if before is not None and before - first_roll > placed:
            out += dice_lines[placed:before - first_roll]
            placed = before - first_roll
        out.append(event)
    return out + dice_lines[placed:]


@dataclass(frozen=True)
class Applied(Generic[S]):
    """One line of a multi-line submission, applied: the state it was applied to, the
    order read from it, the dice it was handed and its outcome; ``waits``: a decision is
    now pending and more lines follow, so they are not applied (the owing side answers
    first)."""

    number: int
    text: str
    before: S
    order: Order
    outcome: Outcome[S]
    waits: bool
    dice: Dice


@dataclass(frozen=True)
class Refused:
    """One line of a multi-line submission, refused: nothing of it was applied."""

    number: int
    text: str
    error: RuleError


def apply_lines(game: Game[S], state: S, side: str, lines: Sequence[str],
                dice: Callable[[Order], Dice],
                internal: Callable[[Exception, int], RuleError] | None = None
                ) -> Iterator[Applied[S] | Refused]:
    """Apply ``lines`` in turn for ``side``, each on the state the one before left; stop
    after a refused line, or after a line that leaves a decision pending while more lines
    follow. What was applied before a stop stays applied. A line that stands for several
    orders (:meth:`Game.expand`) is applied as those orders, one after another, as if each
    were typed on its own line: ``number`` (1-based) counts orders, not lines, and a
    refusal among them keeps the ones before it, like the lines before a refused line.

    The one loop every multi-line submission runs (the game service's submissions).
    ``dice(order)`` is called once per line, with the order read
    from it, just before it is applied, so a caller that stores each line as an action can
    hand each its own dice (the service: the dice a rolled-back action rolled for the same
    order). ``internal``: turns any other exception met on a line into its refusal (the
    service's "internal error", logged); without it such an exception propagates.
    """
    number = 0  # orders applied so far: a line may stand for several (Game.expand)
    for line, text in enumerate(lines, start=1):
        try:
            read = game.parse_in(state, text)
            orders = game.expand(state, side, read) or [read]
        except RuleError as error:
            yield Refused(number + 1, text, error)
            return
        except Exception as caught:
            if internal is None:
                raise
            yield Refused(number + 1, text, internal(caught, number + 1))
            return
        for part, order in enumerate(orders, start=1):
            number += 1
            expanded = order is not read
            shown = game.format(order) if expanded else text
            try:
                line_dice = dice(order)
                outcome = game.apply(state, side, order, line_dice)
            except RuleError as error:
                if expanded:  # name the order of the expansion refused (unit and hex)
                    error = RuleError(error.rule, f"{shown} (order {part} of {len(orders)} "
                                      f"that '{text}' stands for): {error.message}",
                                      error.legal)
                yield Refused(number, shown, error)
                return
            except Exception as caught:
                if internal is None:
                    raise
                yield Refused(number, shown, internal(caught, number))
                return
            last = line == len(lines) and part == len(orders)
            waits = outcome.state.pending is not None and not last
            yield Applied(number, shown, state, order, outcome, waits, line_dice)
            if waits:
                return
            state = outcome.state


class Views(Generic[S]):
    """The views of one state, built on first use and kept: ``views(viewer)``.

    Viewers whose :meth:`Game.view_key` is equal share one :meth:`Game.make_view`: the
    others get a shallow copy with their own ``viewer`` and kernel fields. Views are
    read-only to their users (renderers and formatters never change one), which is what
    makes sharing their parts safe.
    """

    def __init__(self, game: Game[S], state: S) -> None:
        self._game = game
        self._state = state
        self._made: dict[Hashable, View] = {}
        self._views: dict[str, View] = {}

    def __call__(self, viewer: str) -> View:
        view = self._views.get(viewer)
        if view is None:
            game, state = self._game, self._state
            check_viewer(viewer, game.sides)
            key = game.view_key(state, viewer)
            made = self._made.get(key)
            if made is None:
                view = made = self._made[key] = game.make_view(state, viewer)
            else:
                view = made.model_copy(update={"viewer": viewer})
            view = self._views[viewer] = game._finish_view(view, state, viewer)
        return view

    @property
    def built(self) -> int:
        """How many times :meth:`Game.make_view` ran (for tests and benchmarks)."""
        return len(self._made)
