"""Replaying the action log: the one place that turns stored actions back into state.

Used by the service (state = nearest snapshot + replay of the active tail), by rollback
(state at action k) and by ``umpire verify`` (replay from scratch, every hash checked).
An order is replayed from its canonical text with exactly the dice it rolled, so replay
never needs the secret seed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from adjudicator.kernel.dice import Dice, FixedDice, Roll
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import GameState
from bot.overrides import apply_override, parse_override
from bot.store import loads

#: Kinds of action rows that carry an order text to re-apply.
ORDER_KINDS = ("order", "decision", "system")
#: A snapshot is stored when replaying the actions since the last would take this many
#: milliseconds of CPU (the service's default, and an import's).
SNAPSHOT_REPLAY_MS = 20.0

DiceFactory = Callable[[bytes, str, int, int], Dice]


def initial_state(game: Game[Any], scenario: str | None,
                  options: Mapping[str, Any] | None) -> GameState:
    """A game's starting state as every game has started in play, and as every replay of a
    record starts: the set-up, with every dict in the canonical bytes' order (sorted keys),
    as a game loaded from its first stored snapshot has always had it. The rules iterate
    dicts in their order (which unit comes first), so play and replay must agree on it;
    snapshots keep whatever order the game has since (``GameState.to_json``)."""
    state: GameState = game.load_state(game.setup(scenario, dict(options or {})).to_bytes())
    return state


class ReplayError(Exception):
    """The log does not reproduce its own recorded states (or an action no longer applies)."""


class ForcingDice:
    """Wraps a dice source; the GM's forced values replace the next dice, one per die."""

    def __init__(self, inner: Dice, forced: Sequence[Mapping[str, Any]] = ()) -> None:
        self.inner = inner
        self.forced = [dict(item) for item in forced]
        self.used = 0
        self.rolls: list[Roll] = []
        self.forced_positions: dict[int, list[int]] = {}

    def roll(self, label: str, count: int = 2, sides: int = 6, audience: str = "public") -> Roll:
        base = self.inner.roll(label, count, sides, audience)
        values = list(base.values)
        positions: list[int] = []
        for position in range(count):
            if not self.forced:
                break
            value = int(self.forced.pop(0)["value"])
            if not 1 <= value <= sides:
                raise RuleError("override", f"the forced die {value} is not a face of a d{sides}"
                                f" ({label}); clear or change the forced dice")
            values[position] = value
            positions.append(position)
            self.used += 1
        roll = base.model_copy(update={"values": tuple(values)}) if positions else base
        if positions:
            self.forced_positions[roll.index] = positions
        self.rolls.append(roll)
        return roll


def rolls_to_json(rolls: Sequence[Roll], forced: Mapping[int, list[int]] | None = None
                  ) -> list[dict[str, Any]]:
    out = []
    for roll in rolls:
        item = roll.model_dump(mode="json")
        if forced and roll.index in forced:
            item["forced"] = forced[roll.index]
        out.append(item)
    return out


def replay_dice(row: Mapping[str, Any]) -> FixedDice:
    rolls = loads(row["rolls"], [])
    values = [value for roll in rolls for value in roll["values"]]
    start = int(rolls[0]["index"]) if rolls else int(row["next_roll"])
    branch = int(rolls[0].get("branch", row["branch"])) if rolls else int(row["branch"])
    return FixedDice(values, start_index=start, branch=branch)


def replay_row(game: Game[Any], state: GameState, row: Mapping[str, Any]) -> GameState:
    """The state after one stored action, applied with the dice it recorded.

    A rollback row changes nothing here: the rows it reverted are left out of the chain.
    """
    return replay_outcome(game, state, row)[0]


def replay_outcome(game: Game[Any], state: GameState, row: Mapping[str, Any],
                   owned: bool = False) -> tuple[GameState, list[Event] | None]:
    """:func:`replay_row`, with the events the rules give again (None for an action the
    rules do not make: a rollback, a pause — the service writes their notices).

    ``owned``: the caller owns ``state`` and drops it: an order is replayed on it in place,
    without the copy ``apply`` protects its input with (a replay has no use for it). Then
    :class:`~adjudicator.kernel.game.OriginalNeeded` may come out (the rules needed the
    state as the order found it, 9.4): replay the order again, not in place, on that state
    rebuilt (a snapshot's JSON keeps its dicts' order; canonical bytes would not)."""
    kind = row["kind"]
    try:
        if kind in ORDER_KINDS and row["text"]:
            dice = replay_dice(row)
            outcome = game.apply_text(state, str(row["side"]), str(row["text"]), dice,
                                      owned=owned)
            if dice.unused:
                raise ReplayError(f"action {row['seq']}: dice left unused {dice.unused}")
            result: GameState = outcome.state
            return result, list(outcome.events)
        if kind == "gm-override":
            payload = loads(row["payload"], {})
            op = parse_override(payload["op"])
            dice = replay_dice(row)
            done = apply_override(game, state, op, str(payload.get("reason", "")), dice)
            return done.state, list(done.events)
    except (RuleError, ValueError, KeyError, TypeError) as error:
        raise ReplayError(f"action {row['seq']} ({row['kind']} {row['text'] or ''}) "
                          f"no longer applies: {error}") from error
    return state, None


def replay_chain(game: Game[Any], state: GameState, rows: Sequence[Mapping[str, Any]],
                 check: bool = True, owned: bool = False) -> GameState:
    """Apply active rows in order; with ``check``, every recorded state hash must match.

    ``owned``: the caller hands ``state`` over (fresh from a snapshot, say): orders are
    replayed in place (see :func:`replay_outcome`); on
    :class:`~adjudicator.kernel.game.OriginalNeeded` run the chain again, not in place, from
    a fresh start."""
    for row in rows:
        state = replay_outcome(game, state, row, owned)[0]
        if check:
            digest = state.state_hash()
            if digest != row["state_hash"]:
                raise ReplayError(f"action {row['seq']}: replay gives state {digest[:12]},"
                                  f" the log recorded {str(row['state_hash'])[:12]}")
    return state


def forced_queue(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The GM's forced dice still unused after ``rows`` (active actions, in order; stored
    rows or record lines)."""
    declared: list[dict[str, Any]] = []
    used = 0
    for row in rows:
        for roll in loads(row["rolls"], []):
            used += len(roll.get("forced") or [])
        if row["kind"] == "gm-override":
            payload = loads(row["payload"], {})
            if (payload.get("op") or {}).get("op") == "force-dice":
                declared += [{"value": v, "reason": payload["reason"]}
                             for v in payload["op"]["values"]]
    return declared[used:]


def forced_before(current: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]
                  ) -> list[dict[str, Any]] | None:
    """The GM's forced dice unused before the active actions ``after`` (in order, from some
    point to the end of the log), told from those unused at the end (``current``) without
    reading the log before that point: the forced-dice overrides among ``after`` only
    appended to the queue. None when a die was forced among them (the queue before cannot
    be told from its end then: read the log, :func:`forced_queue`)."""
    declared = 0
    for row in after:
        if any(roll.get("forced") for roll in loads(row["rolls"], [])):
            return None
        if row["kind"] == "gm-override":
            payload = loads(row["payload"], {})
            if (payload.get("op") or {}).get("op") == "force-dice":
                declared += len(payload["op"]["values"])
    kept = len(current) - declared
    return [dict(item) for item in current[:kept]] if kept >= 0 else None
