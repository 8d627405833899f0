"""Game records: export, verify and import as JSON lines.

A record is readable text, one JSON object a line:

* line 1, the header: ``{"record": "umpire/1", game, scenario, options, pack_hash,
  commitment, dice_id, entropy, seats, closed_seats?, initial_hash, status, result,
  pause_reason?, seed?}`` — ``seed`` only once the game is over (or when a GM exports
  with the seed); ``closed_seats`` the seats of replaced players, with when, by whom and
  why they were closed;
* then one line per action, in order, reverted ones included: ``seq, kind, branch,
  actor, side, text, payload, rolls, applied, next_roll, state_hash, created,
  reverted_by``.

:func:`verify` replays the record from scratch in the order things happened (a rollback
returns to the state of the action it names), checks every state hash, and with the
revealed seed re-derives every die that the GM did not force.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from adjudicator.kernel.dice import commitment, derive_values, effective_seed
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import Game, OriginalNeeded
from adjudicator.kernel.state import GameState
from adjudicator.registry import UnknownGame, load_game
from bot.dice_reuse import POSITION, public_position, same_position
from bot.history import (
    ORDER_KINDS,
    SNAPSHOT_REPLAY_MS,
    ReplayError,
    initial_state,
    replay_outcome,
)
from bot.messages import redact_label
from bot.store import NewAction, Snapshot, Store, dumps, loads

FORMAT = "umpire/1"
ACTION_FIELDS = ("seq", "kind", "branch", "actor", "side", "text", "payload", "rolls",
                 "events", "applied", "next_roll", "state_hash", "created", "reverted_by")
#: Events the service writes itself (the rules do not make them on replay): a deadline's
#: notice before the order it plays, a GM's re-roll before the order it rolls again; a new
#: dice commitment after a reopened game's action.
SERVICE_NOTICES = ("deadline", "reroll", "reroll-detail")
RESEED = "dice-commitment"
#: The only events of actions the rules do not make (rollback, pause, resume).
STATUS_NOTICES = ("rollback", "undo", "pause", "resume", RESEED)


#: A replay in place keeps a checkpoint when replaying the actions since the last would
#: take this many milliseconds of CPU (see :class:`Replay`).
CHECKPOINT_MS = 5.0


class RecordError(Exception):
    pass


class VerifyResult(BaseModel):
    ok: bool
    actions: int
    rolls_checked: int
    rolls_forced: int
    seed_checked: bool
    problems: list[str]
    final_hash: str | None = None
    #: the GM's re-rolls, as everyone was told them ("action 22: GM re-rolled …")
    rerolls: list[str] = []


def dice_stream(item: Mapping[str, Any]) -> tuple[int, int] | None:
    """(branch, first roll index) of the dice stream an action (a stored row or a record
    line) rolled on: its own branch from its first roll, or, for an order given again
    where a rolled-back action gave it, that action's stream (payload ``dice``); None when
    it rolled nothing."""
    rolls = loads(item.get("rolls"), [])
    if not rolls:
        return None
    again = (loads(item.get("payload"), {}) or {}).get("dice")
    if again:
        return int(again["branch"]), int(again["from"])
    return int(item["branch"]), int(rolls[0]["index"])


def order_of(game: Game[Any], item: Mapping[str, Any]) -> str | None:
    """The order an action (a stored row or a record line) gave for its side, canonical:
    an order's or a decision's text, a GM's answer to a decision (``answer-decision``)
    read from its payload; None for anything else."""
    if item["kind"] in ORDER_KINDS:
        return str(item["text"]) if item.get("text") else None
    if item["kind"] != "gm-override":
        return None
    op = (loads(item.get("payload"), {}) or {}).get("op") or {}
    if op.get("op") != "answer-decision":
        return None
    try:
        return game.format(game.parse(str(op.get("order"))))
    except (RuleError, ValueError):
        return None


def entropy_digest(text: str) -> str:
    """The public commitment to one player's dice entropy (its text stays hidden until the
    game starts, so no contribution can be chosen after seeing another)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def export_lines(store: Store, game_id: str) -> list[dict[str, Any]]:
    """The full record. The dice seed is in it only once the game is over (for everyone,
    the GM included); the seeds of earlier epochs (a game reopened after its end, then
    given a new seed) always, since they were revealed then."""
    row = store.game(game_id)
    if row is None:
        raise RecordError(f"no game {game_id!r}")
    snapshot = store.latest_snapshot(game_id, upto=0)
    texts = [e["text"] for e in store.entropy(game_id)]
    header: dict[str, Any] = {
        "record": FORMAT, "game_id": row["id"], "game": row["game"],
        "scenario": row["scenario"], "options": json.loads(row["options"]),
        "pack_hash": row["pack_hash"], "commitment": row["commitment"],
        "dice_id": row["dice_id"],
        "entropy": texts if row["status"] != "setup" else [],
        "entropy_commitments": [entropy_digest(t) for t in texts],
        "seats": [{"side": s["side"], "role": s["role"], "discord_id": s["discord_id"],
                   "email": s["email"]} for s in store.seats(game_id)],
        "initial_hash": snapshot.state_hash if snapshot else None,
        "status": row["status"], "result": row["result"], "created": row["created"],
    }
    closed = [s for s in store.seat_history(game_id) if s["removed"] is not None]
    if closed:
        header["closed_seats"] = [
            {"side": s["side"], "role": s["role"], "discord_id": s["discord_id"],
             "email": s["email"], "removed": s["removed"], "removed_by": s["removed_by"],
             "removed_reason": s["removed_reason"]} for s in closed]
    if row["status"] == "paused":
        header["pause_reason"] = row["pause_reason"]
    if row["seed_revealed"] and row["server_seed"] is not None:
        header["seed"] = bytes(row["server_seed"]).hex()
    past = store.past_seeds(game_id)
    if past:
        header["seed_from_branch"] = int(row["seed_from_branch"] or 0)
        header["past_seeds"] = [{"from_branch": int(p["from_branch"]),
                                 "commitment": p["commitment"],
                                 "seed": bytes(p["seed"]).hex()} for p in past]
    lines = [header]
    for action in store.actions(game_id):
        item = {key: action[key] for key in ACTION_FIELDS}
        for key in ("payload", "rolls", "events", "applied"):
            item[key] = json.loads(action[key]) if action[key] is not None else None
        lines.append(item)
    return lines


def redact_contacts(lines: Sequence[Mapping[str, Any]], labels: Mapping[str, str],
                    reader: Any) -> list[dict[str, Any]]:
    """A full record with every email address but the reader's own withheld (seats,
    closed seats, actors). Addresses are not part of any hash: it still verifies."""
    own = {reader.email.lower()} if getattr(reader, "email", None) else set()
    keep = getattr(reader, "label", None)

    def seat(item: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(item)
        if out.get("email") and str(out["email"]).lower() not in own:
            out["email"] = None
        if "removed_by" in out:
            out["removed_by"] = redact_label(out["removed_by"], labels, keep)
        return out

    header = dict(lines[0])
    for key in ("seats", "closed_seats"):
        if key in header:
            header[key] = [seat(item) for item in header[key]]
    actions = [{**item, "actor": redact_label(item.get("actor"), labels, keep)}
               for item in lines[1:]]
    return [header, *actions]


def write_record(lines: Iterable[Mapping[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(dumps(line) + "\n")


def iter_record(path: Path) -> Iterator[dict[str, Any]]:
    """The lines of a record file, read one at a time (the header first, checked)."""
    with path.open(encoding="utf-8") as handle:
        first = True
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError as error:
                raise RecordError(f"{path}:{number}: not JSON: {error}") from error
            if first and (not isinstance(line, dict) or line.get("record") != FORMAT):
                raise RecordError(f"{path}: not an Umpire record (expected a {FORMAT} header)")
            first = False
            yield line
        if first:
            raise RecordError(f"{path}: not an Umpire record (expected a {FORMAT} header)")


def read_record(path: Path) -> list[dict[str, Any]]:
    return list(iter_record(path))


def rollback_targets(actions: Iterable[Mapping[str, Any]]) -> set[int]:
    """The actions a record's rollbacks return to: the only states a replay must keep."""
    return {int((item.get("payload") or {}).get("to_seq", -1)) for item in actions
            if item.get("kind") == "rollback"}


def scan_targets(path: Path) -> set[int]:
    """:func:`rollback_targets` of a record file, read quickly ahead of its replay (only the
    lines that mention a rollback are parsed)."""
    targets: set[int] = set()
    with path.open(encoding="utf-8") as handle:
        for text in handle:
            if "rollback" in text:
                try:
                    targets |= rollback_targets([json.loads(text)])
                except (json.JSONDecodeError, AttributeError):
                    continue  # the replay reports it
    return targets


def _rules(header: Mapping[str, Any], pack: Path | None) -> Game[Any]:
    try:
        return load_game(str(header["game"]), pack)
    except UnknownGame as error:
        raise RecordError(str(error)) from error


def _as_row(item: Mapping[str, Any]) -> dict[str, Any]:
    return {**item, "rolls": item.get("rolls") or [], "payload": item.get("payload")}


class Replay:
    """A record replayed in one pass, in the order things happened (a rollback returns to the
    state of the action it names), keeping only the current state and the states the
    record's rollbacks return to (``targets``): constant memory whatever the record's length.

    Orders are replayed in place (no protective copy: ``owned``); if the rules need the
    state as an order found it after all (9.4), the replay goes back to its last checkpoint
    (a state kept whenever the actions since the last took :data:`CHECKPOINT_MS` to replay,
    and the actions since) and replays from there with copies. Kept states are JSON in the
    state's own order (:meth:`GameState.to_json`), not canonical bytes: the rules iterate
    dicts in insertion order.

    Besides every state hash, each action's recorded events must be the ones the rules
    give again (the service's own notices aside), and every die marked forced must be the
    next value of a GM's logged ``force-dice`` override, taken in order (:func:`_forcing`).
    The first problem stops the replay (``problems``).
    """

    def __init__(self, game: Game[Any], header: Mapping[str, Any],
                 targets: Collection[int]) -> None:
        self.game = game
        self.targets = set(targets)
        self.problems: list[str] = []
        self.state = initial_state(game, header.get("scenario"), header.get("options"))
        self.initial = self.state.to_json()
        self.initial_hash = self.state.state_hash()
        if header.get("initial_hash") and self.initial_hash != header["initial_hash"]:
            self.problems.append("the starting position differs from the record's (another "
                                 "data pack?)")
        #: the GM's forced dice still unused by the active actions so far
        self.queue: list[dict[str, Any]] = []
        self.kept: dict[int, tuple[bytes, list[dict[str, Any]]]] = {}
        if 0 in self.targets:
            self.kept[0] = (self.initial, [])
        self.last_hash: str | None = self.initial_hash
        self.checkpoint = self.initial
        self.since: list[Mapping[str, Any]] = []  # the actions fed since the checkpoint
        self.cost = 0.0  # CPU seconds replaying ``since`` took

    @property
    def stopped(self) -> bool:
        return bool(self.problems)

    def feed(self, item: Mapping[str, Any]) -> None:
        """Replay one action of the record (nothing once a problem was found)."""
        if self.problems:
            return
        seq = int(item["seq"])
        events: list[Event] | None = None
        if item["kind"] == "rollback":
            target = int((item.get("payload") or {}).get("to_seq", -1))
            if target not in self.kept:
                self._stop(f"action {seq}: rollback to unknown action {target}")
                return
            self.checkpoint = self.kept[target][0]
            self.state = self.game.load_state(self.checkpoint)
            self.queue = list(self.kept[target][1])
            self.since, self.cost = [], 0.0
        else:
            problem = _forcing(self.queue, item)
            if problem is not None:
                self._stop(problem)
                return
            started = time.thread_time()
            try:
                try:
                    self.state, events = replay_outcome(self.game, self.state, _as_row(item),
                                                        owned=True)
                except OriginalNeeded:
                    self.state, events = replay_outcome(self.game, self._rewound(),
                                                        _as_row(item))
            except ReplayError as error:
                self._stop(str(error))
                return
            self.cost += time.thread_time() - started
            self.queue = _after(self.queue, item)
        digest = self.state.state_hash()
        if digest != item["state_hash"]:
            self._stop(f"action {seq}: replay gives state {digest[:12]}, the record says "
                       f"{str(item['state_hash'])[:12]}")
            return
        problem = _events_problem(item, events)
        if problem is not None:
            self._stop(problem)
            return
        self.last_hash = digest
        if seq in self.targets:
            self.kept[seq] = (self.state.to_json(), list(self.queue))
        if item["kind"] != "rollback":
            self.since.append(item)
        if self.cost * 1000 >= CHECKPOINT_MS:
            self.checkpoint, self.since, self.cost = self.state.to_json(), [], 0.0

    def _rewound(self) -> GameState:
        """The state before the action being fed, replayed again (with copies) from the last
        checkpoint."""
        state: GameState = self.game.load_state(self.checkpoint)
        for item in self.since:
            state = replay_outcome(self.game, state, _as_row(item))[0]
        return state

    def _stop(self, problem: str) -> None:
        self.problems.append(problem)
        self.last_hash = None


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True, ensure_ascii=False))


def _events_problem(item: Mapping[str, Any], replayed: list[Event] | None) -> str | None:
    """How an action's recorded events differ from what the rules give again."""
    if "events" not in item:
        return None  # a record written before events were recorded
    recorded = [e for e in _plain(item.get("events") or []) if e.get("kind") != RESEED]
    seq = item["seq"]
    if replayed is None:
        wrong = [e.get("kind") for e in recorded if e.get("kind") not in STATUS_NOTICES]
        return f"action {seq}: unexpected events {wrong}" if wrong else None
    again = _plain([e.model_dump(mode="json") for e in replayed])
    lead = recorded[:len(recorded) - len(again)] if len(recorded) >= len(again) else None
    if lead is None or recorded[len(lead):] != again or any(
            e.get("kind") not in SERVICE_NOTICES for e in lead):
        return (f"action {seq}: the recorded events are not those the rules give "
                f"(e.g. {_first_difference(recorded, again)})")
    return None


def _first_difference(recorded: list[Any], again: list[Any]) -> str:
    for got, want in zip(recorded[::-1], again[::-1], strict=False):
        if got != want:
            return (f"recorded {str(got.get('text'))[:60]!r}, the rules give "
                    f"{str(want.get('text'))[:60]!r}")
    return f"{len(recorded)} events recorded, {len(again)} given"


def _forcing(queue: Sequence[Mapping[str, Any]], item: Mapping[str, Any]) -> str | None:
    """Whether the dice ``item`` marks forced are exactly those the GM's logged overrides
    force next (``queue``: the forced dice still unused before it, in order): the first
    dice rolled while forced values wait, in order, and no others."""
    values_waiting = [int(d["value"]) for d in queue]
    for roll in item.get("rolls") or []:
        values = list(roll.get("values") or [])
        take = min(len(values), len(values_waiting))
        if sorted(roll.get("forced") or []) != list(range(take)) or any(
                values[p] != values_waiting[p] for p in range(take)):
            return (f"action {item['seq']}: roll {roll.get('branch')}/{roll.get('index')} "
                    f"marks dice {roll.get('forced') or []} forced, but the GM's logged "
                    f"force-dice overrides force {values_waiting[:take] or 'none'} there")
        values_waiting = values_waiting[take:]
    return None


def _after(queue: Sequence[Mapping[str, Any]], item: Mapping[str, Any]
           ) -> list[dict[str, Any]]:
    """The forced dice unused after ``item`` (``queue``: before it): those it rolled are
    used, a ``force-dice`` override adds its values (:func:`bot.history.forced_queue`, one
    action at a time)."""
    used = sum(len(roll.get("forced") or []) for roll in item.get("rolls") or [])
    out = [dict(d) for d in queue[used:]]
    payload = item.get("payload") or {}
    if item.get("kind") == "gm-override" and (payload.get("op") or {}).get("op") == "force-dice":
        out += [{"value": v, "reason": payload["reason"]} for v in payload["op"]["values"]]
    return out


def _roll_problem(seed: bytes, dice_id: str, seq: int, roll: Mapping[str, Any]) -> str | None:
    """How a recorded roll differs from what ``seed`` gives, the GM's forced dice aside."""
    values = roll["values"]
    expected = derive_values(seed, dice_id, int(roll["branch"]), int(roll["index"]),
                             str(roll["label"]), len(values), int(roll.get("sides", 6)))
    forced = set(roll.get("forced") or [])
    if all(got == want for position, (got, want) in enumerate(zip(values, expected, strict=True))
           if position not in forced):
        return None
    return (f"action {seq}: roll {roll['branch']}/{roll['index']} {roll['label']!r} recorded "
            f"{values}, the seed gives {list(expected)}")


def dice_epochs(header: Mapping[str, Any], seed_hex: str | None = None
                ) -> list[tuple[int, str, str | None]]:
    """(first branch, commitment, seed hex or None) of every server seed the game used:
    earlier epochs (revealed), then the current one (``seed_hex`` or the header's)."""
    past = [(int(p["from_branch"]), str(p["commitment"]), p.get("seed"))
            for p in header.get("past_seeds") or []]
    return [*past, (int(header.get("seed_from_branch") or 0), str(header["commitment"]),
                    seed_hex or header.get("seed"))]


class SameDice:
    """No re-roll but the GM's logged one: an order given again by the same side from the
    same public position as an action rolled back before it (:mod:`bot.dice_reuse`; for
    an action stored before positions were kept, the same state) must roll on that
    action's dice stream (:func:`dice_stream`, the newest such action's), unless the
    action is a GM's re-roll (payload ``reroll``, a public ``reroll`` notice), which is
    listed (``rerolls``). Dice of an earlier seed (a game reopened after its end) are not
    held to this. Each position is computed from the replayed state (``feed``'s
    ``before``), never taken from the record: a recorded one that differs is a problem."""

    def __init__(self, game: Game[Any], epochs: Sequence[tuple[int, str, str | None]],
                 initial_hash: str) -> None:
        self.game = game
        self.firsts = sorted(first for first, _, _ in epochs)
        self.before = initial_hash
        #: (side, text) -> [(stream, the rollback that reverted it, the state's hash
        #: before it, its payload with the replay's public position)], oldest first
        self.seen: dict[tuple[str, str], list[
            tuple[tuple[int, int], int, str, dict[str, Any]]]] = {}
        self.rerolls: list[str] = []
        self.problems: list[str] = []

    def feed(self, item: Mapping[str, Any], before_state: GameState | None = None) -> None:
        """One action of the record; ``before_state``: the replayed state it was given in
        (None once the replay stopped: then positions are not checked)."""
        before, self.before = self.before, str(item["state_hash"])
        stream = dice_stream(item)
        text = order_of(self.game, item) if stream is not None else None
        if stream is None or text is None:
            return
        seq = int(item["seq"])
        payload = dict(loads(item.get("payload"), {}) or {})
        state = before_state
        position = cache(lambda: "" if state is None else public_position(self.game, state))
        if POSITION in payload and state is not None:
            if payload[POSITION] != position():
                self.problems.append(f"action {seq}: the public position recorded differs "
                                     "from the replay's")
            payload[POSITION] = position()
        reroll = payload.get("reroll")
        earlier = next((e for e in reversed(self.seen.get((str(item["side"]), text), []))
                        if e[1] < seq and same_position(e[3], e[2], position, before)), None)
        epoch = max((f for f in self.firsts if f <= int(item["branch"])), default=0)
        if reroll:
            told = [str(e.get("text")) for e in item.get("events") or []
                    if e.get("kind") == "reroll"]
            if earlier is None or not told:
                self.problems.append(f"action {seq}: a re-roll of no rolled-back action "
                                     "(or not told to everyone)")
            self.rerolls += [f"action {seq}: {text}" for text in told]
        elif earlier is not None and earlier[0][0] >= epoch and stream != earlier[0]:
            self.problems.append(
                f"action {seq}: {item['side']}'s {text!r} was given again from the "
                f"position of a rolled-back action and rolled new dice (stream "
                f"{stream[0]}/{stream[1]}, not {earlier[0][0]}/{earlier[0][1]}): a re-roll "
                "the GM did not log")
        if item.get("reverted_by") is not None:
            self.seen.setdefault((str(item["side"]), text), []).append(
                (stream, int(item["reverted_by"]), before, payload))


class Verifier:
    """A record checked in one streaming pass: the replay (:class:`Replay`), and with the
    revealed seed every die the GM did not force, the dice entropy against its commitments,
    each reopened game's new commitment against the header's."""

    def __init__(self, header: Mapping[str, Any], seed_hex: str | None, pack: Path | None,
                 targets: Collection[int]) -> None:
        self.header = header
        self.replay = Replay(_rules(header, pack), header, targets)
        self.actions = self.checked = self.forced = 0
        self.problems: list[str] = []  # beyond the replay's: entropy and seeds
        self.reseeds: list[str] = []
        self.rolls: list[str] = []
        entropy = list(header.get("entropy") or [])
        pledged = header.get("entropy_commitments")
        if pledged is not None and entropy and (sorted(map(entropy_digest, entropy))
                                                != sorted(pledged)):
            self.problems.append("the dice entropy differs from the contributions committed to")
        self.epochs = dice_epochs(header, seed_hex)
        self.dice = SameDice(self.replay.game, self.epochs, header.get("initial_hash")
                             or self.replay.initial_hash)
        self.seeds: dict[int, bytes] = {}
        for first, pledge, hex_seed in self.epochs:
            if not hex_seed:
                continue
            try:
                seed = bytes.fromhex(hex_seed)
            except ValueError:
                self.problems.append("the seed is not hexadecimal")
                continue
            if commitment(seed) != pledge:
                self.problems.append("the seed does not match the published dice commitment"
                                     + (f" (dice from branch {first})" if first else ""))
                continue
            self.seeds[first] = effective_seed(seed, entropy)

    def feed(self, item: Mapping[str, Any]) -> None:
        self.actions += 1
        before = None if self.replay.stopped else self.replay.state
        self.dice.feed(item, before)  # before the replay moves its state on (in place)
        self.replay.feed(item)
        for event in item.get("events") or []:
            if event.get("kind") == RESEED and not any(
                    (event.get("data") or {}).get("commitment") == pledge
                    for _, pledge, _ in self.epochs):
                self.reseeds.append(f"action {item['seq']}: a dice commitment the record's "
                                    "header does not hold")
        for roll in item.get("rolls") or []:
            first = max((b for b, _, _ in self.epochs if b <= int(roll["branch"])), default=0)
            self.forced += len(roll.get("forced") or [])
            if first not in self.seeds:
                continue
            self.checked += 1
            problem = _roll_problem(self.seeds[first], str(self.header["dice_id"]),
                                    item["seq"], roll)
            if problem is not None:
                self.rolls.append(problem)

    def result(self) -> VerifyResult:
        problems = [*self.replay.problems, *self.problems, *self.reseeds, *self.rolls,
                    *self.dice.problems]
        return VerifyResult(ok=not problems, actions=self.actions, rolls_checked=self.checked,
                            rolls_forced=self.forced, seed_checked=bool(self.seeds),
                            problems=problems, final_hash=self.replay.last_hash,
                            rerolls=self.dice.rerolls)


def _not_full(header: Mapping[str, Any] | None) -> VerifyResult:
    kind = header.get("record") if header is not None else None
    return VerifyResult(ok=False, actions=0, rolls_checked=0, rolls_forced=0,
                        seed_checked=False, problems=[
                            f"not a full {FORMAT} record ({kind!r}): a record redacted for "
                            "one audience cannot be verified"])


def _opened(lines: Iterable[Mapping[str, Any]], targets: Collection[int] | None
            ) -> tuple[Mapping[str, Any] | None, Iterator[Mapping[str, Any]], Collection[int]]:
    """(header, the action lines to come, rollback targets) of a record; without
    ``targets`` the lines are read whole to find them."""
    if targets is None:
        lines = list(lines)
        targets = rollback_targets(lines[1:])
    items = iter(lines)
    return next(items, None), items, targets


def verify(lines: Iterable[Mapping[str, Any]], seed_hex: str | None = None,
           pack: Path | None = None, targets: Collection[int] | None = None) -> VerifyResult:
    """Replay a record from scratch and check it (:class:`Verifier`), in one pass. ``lines``
    may be streamed (:func:`iter_record`) when ``targets`` (:func:`scan_targets`) is given:
    memory then stays constant whatever the record's length."""
    header, items, targets = _opened(lines, targets)
    if header is None or header.get("record") != FORMAT:
        return _not_full(header)
    verifier = Verifier(header, seed_hex, pack, targets)
    for item in items:
        verifier.feed(item)
    return verifier.result()


def verify_file(path: Path, seed_hex: str | None = None, pack: Path | None = None
                ) -> VerifyResult:
    """:func:`verify` of a record file, streamed."""
    return verify(iter_record(path), seed_hex, pack, scan_targets(path))


def import_record(store: Store, lines: Iterable[Mapping[str, Any]], seed_hex: str | None = None,
                  pack: Path | None = None, game_id: str | None = None,
                  targets: Collection[int] | None = None) -> str:
    """Recreate a game from a record, verified as it is read; returns its id in this store.

    One pass and one transaction: each action is checked (:class:`Verifier`) and written as
    it comes, with a snapshot whenever replaying since the last would cost
    :data:`~bot.history.SNAPSHOT_REPLAY_MS`; any problem rolls everything back. ``lines``
    may be streamed when ``targets`` is given (see :func:`verify`).

    With the seed (checked against the commitment) the game can go on being played here;
    without it, an unfinished game is imported as ``archived`` (readable, exportable).
    """
    header, items, targets = _opened(lines, targets)
    if header is None or header.get("record") != FORMAT:
        raise RecordError("the record does not verify: " + "; ".join(_not_full(header).problems))
    verifier = Verifier(header, seed_hex, pack, targets)
    replay = verifier.replay
    game = replay.game
    seed_hex = seed_hex or header.get("seed")
    seed = bytes.fromhex(seed_hex) if seed_hex else None
    gid = game_id or str(header["game_id"])
    if store.game(gid) is not None:
        gid = uuid.uuid4().hex[:12]
    status = header["status"]
    if seed is None and status in ("active", "paused"):
        status = "archived"
    head = next_roll = branch = 0
    cost = 0.0
    with store.write() as db:
        db.table("games").insert({
            "id": gid, "game": header["game"], "scenario": header.get("scenario"),
            "options": dumps(header.get("options") or {}), "pack_path": str(pack) if pack else None,
            "pack_hash": header.get("pack_hash"), "status": status,
            "created": float(header.get("created") or 0), "created_by": "import",
            "bindings": "{}", "dice_id": header["dice_id"], "server_seed": seed,
            "commitment": header["commitment"], "seed_revealed": int("seed" in header),
            "seed_from_branch": int(header.get("seed_from_branch") or 0),
            "pause_reason": header.get("pause_reason") if status == "paused" else None})
        for seat in [*(header.get("closed_seats") or []), *(header.get("seats") or [])]:
            db.table("seats").insert({**seat, "game_id": gid, "created": 0.0})
        for text in header.get("entropy") or []:
            db.table("entropy").insert({"game_id": gid, "actor": "import", "text": text,
                                        "created": 0.0})
        for past in header.get("past_seeds") or []:
            db.table("dice_seeds").insert({
                "game_id": gid, "from_branch": int(past["from_branch"]),
                "seed": bytes.fromhex(past["seed"]), "commitment": past["commitment"],
                "created": 0.0})
        store.add_snapshot(db, gid, Snapshot(0, replay.initial, replay.initial_hash))
        for item in items:
            started = time.thread_time()
            verifier.feed(item)
            cost += time.thread_time() - started
            if replay.stopped:
                break
            seq = int(item["seq"])
            head, branch = seq, max(branch, int(item["branch"]))
            db.table("actions").insert(NewAction(
                seq=seq, branch=int(item["branch"]), actor=str(item["actor"]),
                kind=str(item["kind"]), state_hash=str(item["state_hash"]),
                next_roll=int(item["next_roll"]), created=float(item["created"]),
                side=item.get("side"), text=item.get("text"), payload=item.get("payload"),
                rolls=list(item.get("rolls") or []), events=list(item.get("events") or []),
                applied=list(item.get("applied") or [])).row(gid)
                | {"reverted_by": item.get("reverted_by")})
            if item.get("reverted_by") is None:
                next_roll = int(item["next_roll"])
                if cost * 1000 >= SNAPSHOT_REPLAY_MS:
                    store.add_snapshot(db, gid, Snapshot(seq, replay.state.to_json(),
                                                         str(item["state_hash"])))
                    cost = 0.0
        result = verifier.result()
        if not result.ok:
            raise RecordError("the record does not verify: " + "; ".join(result.problems))
        current = replay.state
        if head:  # the state now, after the last action (never a reverted one)
            store.add_snapshot(db, gid, Snapshot(head, current.to_json(), str(replay.last_hash)))
        db.table("games").update(gid, {
            "branch": branch, "head_seq": head, "next_roll": next_roll,
            "forced_dice": dumps(replay.queue), "state_hash": replay.last_hash,
            "to_act": game.acting_side(current), "result": current.result})
    return gid


def import_file(store: Store, path: Path, seed_hex: str | None = None,
                pack: Path | None = None) -> str:
    """:func:`import_record` of a record file, streamed."""
    return import_record(store, iter_record(path), seed_hex, pack, targets=scan_targets(path))
