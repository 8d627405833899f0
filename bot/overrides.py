"""GM overrides: typed, validated operations, each logged as a ``gm-override`` action.

Generic operations every game gets:

* ``force-dice``: the next die values (one per die, consumed in order) with a reason;
* ``answer-decision``: answer the pending decision for the side that owes it, with one of
  its legal options (the "fix a stuck decision" tool);
* ``set-standing``: set or clear a side's standing order for a kind of decision.

Game-specific state edits (move a unit, set Control, Rubble, date/impulse…) go through the
hooks every game declares (:meth:`Game.gm_operations`, :meth:`Game.gm_edit`; none by
default); the service validates the arguments against the model the game declares and logs
the edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import NotationError, RuleError
from adjudicator.kernel.events import GM, PUBLIC, Event
from adjudicator.kernel.game import Game, Outcome
from adjudicator.kernel.orders import SetStanding
from adjudicator.kernel.spec import read_number
from adjudicator.kernel.state import GameState


class ForceDice(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    op: Literal["force-dice"] = "force-dice"
    values: list[Annotated[int, Field(ge=1, le=20)]] = Field(min_length=1, max_length=20)


class AnswerDecision(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    op: Literal["answer-decision"] = "answer-decision"
    order: str


class SetStandingOp(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    op: Literal["set-standing"] = "set-standing"
    side: str
    kind: str
    policy: str | None = None


class GameEdit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    op: Literal["edit"] = "edit"
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


Override = Annotated[ForceDice | AnswerDecision | SetStandingOp | GameEdit,
                     Field(discriminator="op")]
OVERRIDE_ADAPTER: TypeAdapter[Override] = TypeAdapter(Override)


def parse_override(data: Mapping[str, Any] | BaseModel) -> Override:
    """Validate an override given as a dict (from a frontend or a stored action)."""
    if isinstance(data, ForceDice | AnswerDecision | SetStandingOp | GameEdit):
        return data
    raw = data.model_dump() if isinstance(data, BaseModel) else dict(data)
    try:
        return OVERRIDE_ADAPTER.validate_python(raw)
    except ValidationError as error:
        raise RuleError("override", f"not a valid override: {_short(error)}") from error


def override_from_words(op: str, args: str) -> dict[str, Any]:
    """An override typed as words (a chat option, a line of a mail)::

        force-dice 6 6 · answer-decision decide lose · set-standing SIDE KIND POLICY|off ·
        edit NAME key=value ...

    Raises :class:`RuleError` (rule ``override``) saying what the operation takes.
    """
    words = args.split()
    if op == "force-dice":
        if not words:
            raise RuleError("override", "force-dice takes die values, e.g. `6 6`")
        try:
            return {"op": op, "values": [read_number(w) for w in words]}
        except NotationError as error:
            raise RuleError("override", f"force-dice takes die values, e.g. `6 6`: "
                            f"{error.message}") from error
    if op == "answer-decision":
        if not words:
            raise RuleError("override", "answer-decision takes one of the options, e.g. "
                            "`decide lose`")
        return {"op": op, "order": " ".join(words)}
    if op == "set-standing":
        if len(words) != 3:
            raise RuleError("override", "set-standing takes `SIDE KIND POLICY` (policy `off` "
                            "clears it)")
        side, kind, policy = words
        return {"op": op, "side": side, "kind": kind,
                "policy": None if policy == "off" else policy}
    if op == "edit":
        if not words:
            raise RuleError("override", "edit takes `NAME key=value ...`")
        values: dict[str, str] = {}
        for word in words[1:]:
            key, sep, value = word.partition("=")
            if not sep:
                raise RuleError("override", f"edit arguments are key=value; cannot read "
                                f"{word!r}")
            values[key] = value  # the game's argument model converts numbers
        return {"op": op, "name": words[0], "args": values}
    raise RuleError("override", f"unknown override {op!r}",
                    ["force-dice", "answer-decision", "set-standing", "edit"])


def _short(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())


class OverrideResult(Outcome[GameState]):
    """An order's outcome, plus the side an override acted for (if any)."""

    side: str | None = None


def describe(op: Override) -> str:
    """A one-line public description that gives away no secret."""
    match op:
        case ForceDice(values=values):
            return f"the next {len(values)} die value(s) are set by the GM"
        case AnswerDecision():
            return "the GM answers the pending decision"
        case SetStandingOp(side=side):
            return f"the GM changes a standing order of {side}"
        case GameEdit(name=name):
            return f"the GM edits the game ({name})"
    raise TypeError(op)


def apply_override(game: Game[Any], state: GameState, op: Override, reason: str,
                   dice: Dice) -> OverrideResult:
    """Apply one override to a copy of ``state``; raise :class:`RuleError` if it is invalid.

    The same function replays a stored override, so an override's effect is as
    reproducible as an order's.
    """
    notice = Event(kind="gm-override", text=f"GM override: {describe(op)} — reason: {reason}",
                   audience=PUBLIC, data={"op": op.op})
    match op:
        case ForceDice(values=values):
            detail = Event(kind="gm-override-detail", audience=GM,
                           text=f"forced die values: {', '.join(map(str, values))}")
            return OverrideResult(state=state, events=[notice, detail], rolls=[], applied=[])
        case AnswerDecision(order=text):
            pending = state.pending
            if pending is None:
                raise RuleError("override", "no decision is pending")
            canonical = game.format(game.parse(text))
            if canonical not in pending.option_orders():
                raise RuleError("override", f"{canonical!r} is not one of the options",
                                pending.option_orders())
            outcome = game.apply(state, pending.side, game.parse(canonical), dice)
            return OverrideResult(state=outcome.state, events=[notice, *outcome.events],
                                  rolls=outcome.rolls, applied=outcome.applied,
                                  side=pending.side)
        case SetStandingOp(side=side, kind=kind, policy=policy):
            if side not in game.sides:
                raise RuleError("override", f"unknown side {side!r}", list(game.sides))
            outcome = game.apply(state, side, SetStanding(kind=kind, policy=policy), dice)
            return OverrideResult(state=outcome.state, events=[notice, *outcome.events],
                                  rolls=[], applied=outcome.applied, side=side)
        case GameEdit(name=name, args=args):
            models = game.gm_operations()
            if not models:
                raise RuleError("override", f"{game.name} has no GM edits")
            if name not in models:
                raise RuleError("override", f"unknown edit {name!r}", sorted(models))
            try:
                typed = models[name].model_validate(args)
            except ValidationError as error:
                raise RuleError("override", f"{name}: {_short(error)}") from error
            work = state.copy_for_apply()
            events = game.gm_edit(work, name, typed)
            return OverrideResult(state=work, events=[notice, *events], rolls=[], applied=[])
    raise TypeError(op)
