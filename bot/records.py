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
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from adjudicator.kernel.dice import commitment, derive_values, effective_seed
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import GameState
from adjudicator.registry import UnknownGame, load_game
from bot.history import ReplayError, forced_queue, replay_outcome
from bot.messages import redact_label
from bot.store import NewAction, Snapshot, Store, dumps

FORMAT = "umpire/1"
ACTION_FIELDS = ("seq", "kind", "branch", "actor", "side", "text", "payload", "rolls",
                 "events", "applied", "next_roll", "state_hash", "created", "reverted_by")
#: Events the service writes itself (the rules do not make them on replay): a deadline's
#: notice before the order it plays; a new dice commitment after a reopened game's action.
SERVICE_NOTICES = ("deadline",)
RESEED = "dice-commitment"
#: The only events of actions the rules do not make (rollback, pause, resume).
STATUS_NOTICES = ("rollback", "undo", "pause", "resume", RESEED)


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


def read_record(path: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as error:
                raise RecordError(f"{path}:{number}: not JSON: {error}") from error
    if not lines or lines[0].get("record") != FORMAT:
        raise RecordError(f"{path}: not an Umpire record (expected a {FORMAT} header)")
    return lines


def _rules(header: Mapping[str, Any], pack: Path | None) -> Game[Any]:
    try:
        return load_game(str(header["game"]), pack)
    except UnknownGame as error:
        raise RecordError(str(error)) from error


def _as_row(item: Mapping[str, Any]) -> dict[str, Any]:
    return {**item, "rolls": item.get("rolls") or [], "payload": item.get("payload")}


def replay_record(game: Game[Any], header: Mapping[str, Any], actions: Sequence[Mapping[str, Any]]
                  ) -> tuple[dict[int, GameState], list[str]]:
    """States after every action, replayed in the order things happened; and problems.

    Besides every state hash, each action's recorded events must be the ones the rules
    give again (the service's own notices aside), and every die marked forced must be the
    next value of a GM's logged ``force-dice`` override, taken in order (:func:`_forcing`).
    """
    state = game.setup(header.get("scenario"), header.get("options") or {})
    problems: list[str] = []
    if header.get("initial_hash") and state.state_hash() != header["initial_hash"]:
        problems.append("the starting position differs from the record's (another data pack?)")
    states: dict[int, GameState] = {0: state}
    chain: list[Mapping[str, Any]] = []  # the active actions, as they stood at each point
    for item in actions:
        seq = int(item["seq"])
        events: list[Event] | None = None
        if item["kind"] == "rollback":
            target = int((item.get("payload") or {}).get("to_seq", -1))
            if target not in states:
                problems.append(f"action {seq}: rollback to unknown action {target}")
                break
            state = states[target]
            chain = [a for a in chain if int(a["seq"]) <= target]
        else:
            problem = _forcing(chain, item)
            if problem is not None:
                problems.append(problem)
                break
            try:
                state, events = replay_outcome(game, state, _as_row(item))
            except ReplayError as error:
                problems.append(str(error))
                break
            chain.append(item)
        if state.state_hash() != item["state_hash"]:
            problems.append(f"action {seq}: replay gives state {state.state_hash()[:12]}, "
                            f"the record says {str(item['state_hash'])[:12]}")
            break
        problem = _events_problem(item, events)
        if problem is not None:
            problems.append(problem)
            break
        states[seq] = state
    return states, problems


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


def _forcing(chain: Sequence[Mapping[str, Any]], item: Mapping[str, Any]) -> str | None:
    """Whether the dice ``item`` marks forced are exactly those the GM's logged overrides
    force next: the first dice rolled while forced values wait, in order, and no others."""
    queue = [int(d["value"]) for d in forced_queue(chain)]
    for roll in item.get("rolls") or []:
        values = list(roll.get("values") or [])
        take = min(len(values), len(queue))
        if sorted(roll.get("forced") or []) != list(range(take)) or any(
                values[p] != queue[p] for p in range(take)):
            return (f"action {item['seq']}: roll {roll.get('branch')}/{roll.get('index')} "
                    f"marks dice {roll.get('forced') or []} forced, but the GM's logged "
                    f"force-dice overrides force {queue[:take] or 'none'} there")
        queue = queue[take:]
    return None


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


def verify(lines: Sequence[Mapping[str, Any]], seed_hex: str | None = None,
           pack: Path | None = None) -> VerifyResult:
    header, actions = lines[0], lines[1:]
    if header.get("record") != FORMAT:
        return VerifyResult(ok=False, actions=0, rolls_checked=0, rolls_forced=0,
                            seed_checked=False, problems=[
                                f"not a full {FORMAT} record ({header.get('record')!r}): a "
                                "record redacted for one audience cannot be verified"])
    game = _rules(header, pack)
    states, problems = replay_record(game, header, actions)
    entropy = list(header.get("entropy") or [])
    pledged = header.get("entropy_commitments")
    if pledged is not None and entropy and sorted(map(entropy_digest, entropy)) != sorted(pledged):
        problems.append("the dice entropy differs from the contributions committed to")
    epochs = dice_epochs(header, seed_hex)
    seeds: dict[int, bytes] = {}
    for first, pledge, hex_seed in epochs:
        if not hex_seed:
            continue
        try:
            seed = bytes.fromhex(hex_seed)
        except ValueError:
            problems.append("the seed is not hexadecimal")
            continue
        if commitment(seed) != pledge:
            problems.append("the seed does not match the published dice commitment"
                            + (f" (dice from branch {first})" if first else ""))
            continue
        seeds[first] = effective_seed(seed, entropy)
    for item in actions:
        for event in item.get("events") or []:
            if event.get("kind") == RESEED and not any(
                    (event.get("data") or {}).get("commitment") == pledge
                    for _, pledge, _ in epochs):
                problems.append(f"action {item['seq']}: a dice commitment the record's "
                                "header does not hold")
    checked = forced_count = 0
    for item in actions:
        for roll in item.get("rolls") or []:
            first = max((b for b, _, _ in epochs if b <= int(roll["branch"])), default=0)
            forced_count += len(roll.get("forced") or [])
            if first not in seeds:
                continue
            checked += 1
            problem = _roll_problem(seeds[first], str(header["dice_id"]), item["seq"], roll)
            if problem is not None:
                problems.append(problem)
    last = states.get(int(actions[-1]["seq"])) if actions else states.get(0)
    return VerifyResult(ok=not problems, actions=len(actions), rolls_checked=checked,
                        rolls_forced=forced_count, seed_checked=bool(seeds),
                        problems=problems, final_hash=last.state_hash() if last else None)


def import_record(store: Store, lines: Sequence[Mapping[str, Any]], seed_hex: str | None = None,
                  pack: Path | None = None, game_id: str | None = None) -> str:
    """Recreate a game from a verified record; returns its id in this store.

    With the seed (checked against the commitment) the game can go on being played here;
    without it, an unfinished game is imported as ``archived`` (readable, exportable).
    """
    result = verify(lines, seed_hex, pack)
    if not result.ok:
        raise RecordError("the record does not verify: " + "; ".join(result.problems))
    header, actions = lines[0], lines[1:]
    game = _rules(header, pack)
    states, _ = replay_record(game, header, actions)
    seed_hex = seed_hex or header.get("seed")
    seed = bytes.fromhex(seed_hex) if seed_hex else None
    gid = game_id or str(header["game_id"])
    if store.game(gid) is not None:
        gid = uuid.uuid4().hex[:12]
    active = [a for a in actions if a.get("reverted_by") is None]
    current = states[int(active[-1]["seq"])] if active else states[0]
    status = header["status"]
    if seed is None and status in ("active", "paused"):
        status = "archived"
    rows = [_as_row(a) for a in actions]
    action_rows = [NewAction(
        seq=int(a["seq"]), branch=int(a["branch"]), actor=str(a["actor"]), kind=str(a["kind"]),
        state_hash=str(a["state_hash"]), next_roll=int(a["next_roll"]),
        created=float(a["created"]), side=a.get("side"), text=a.get("text"),
        payload=a.get("payload"), rolls=list(a.get("rolls") or []),
        events=list(a.get("events") or []),
        applied=list(a.get("applied") or [])).row(gid) | {"reverted_by": a.get("reverted_by")}
        for a in actions]
    with store.write() as db:
        db.table("games").insert({
            "id": gid, "game": header["game"], "scenario": header.get("scenario"),
            "options": dumps(header.get("options") or {}), "pack_path": str(pack) if pack else None,
            "pack_hash": header.get("pack_hash"), "status": status,
            "created": float(header.get("created") or 0), "created_by": "import",
            "bindings": "{}", "dice_id": header["dice_id"], "server_seed": seed,
            "commitment": header["commitment"], "seed_revealed": int("seed" in header),
            "seed_from_branch": int(header.get("seed_from_branch") or 0),
            "branch": max([int(a["branch"]) for a in actions] or [0]),
            "head_seq": int(actions[-1]["seq"]) if actions else 0,
            "next_roll": int(active[-1]["next_roll"]) if active else 0,
            "forced_dice": dumps(forced_queue([r for r in rows if r.get("reverted_by") is None])),
            "state_hash": current.state_hash(), "to_act": game.acting_side(current),
            "result": current.result,
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
        for row in action_rows:
            db.table("actions").insert(row)
        for snapshot in (Snapshot(0, states[0].to_bytes(), states[0].state_hash()),
                         Snapshot(int(active[-1]["seq"]), current.to_bytes(),
                                  current.state_hash()) if active else None):
            if snapshot is not None:
                db.table("snapshots").insert(
                    {"game_id": gid, "seq": snapshot.seq, "state": snapshot.state,
                     "state_hash": snapshot.state_hash, "created": 0.0}, replace=True)
    return gid
