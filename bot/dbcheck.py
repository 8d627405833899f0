"""``umpire db check``: what is wrong with a database file, one line per problem.

It runs the database's integrity check (SQLite's; PostgreSQL checks its own pages, so there
the schema's completeness) and the schema check (:class:`bot.store.Store` refuses an
empty file, a file that is not SQLite, or one written by a newer Umpire), then checks every
game: its JSON columns, each snapshot (it loads, and hashes to what it recorded and to the
state of its action), that its actions are numbered 1..head, and its whole record replayed
from the start by :func:`bot.records.verify` (state hashes, events, forced dice, and the
dice once the seed is revealed). Nothing is written.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.registry import UnknownGame, load_game
from bot.records import RecordError, export_lines, verify
from bot.store import Store, StoreError, redact
from bot.store.codec import unpack_state

#: Game columns holding JSON.
JSON_COLUMNS = ("options", "bindings", "forced_dice", "reminder_fractions", "reminders_sent")


@dataclass
class CheckReport:
    path: str
    games: int = 0
    actions: int = 0
    snapshots: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        verdict = "ok" if not self.problems else f"{len(self.problems)} problem(s)"
        return (f"{self.path}: {self.games} games, {self.actions} actions, {self.snapshots} "
                f"snapshots checked — {verdict}")


def check_database(target: str | Path) -> CheckReport:
    """Check the database ``target`` (a path or a URL)."""
    store_label = redact(str(target))
    report = CheckReport(store_label)
    try:
        store = Store(target)
    except StoreError as error:
        report.problems.append(str(error))
        return report
    try:
        integrity = store.integrity_check()
        if integrity != "ok":
            report.problems.append(f"integrity check: {integrity}")
        for game_id in store.game_ids():
            report.games += 1
            try:
                found = check_game(store, game_id, report)
            except StoreError as error:  # this game's rows cannot be read: named, go on
                found = [f"its stored data cannot be read: {_line(error)}"]
            report.problems += [f"game {game_id}: {p}" for p in found]
    except (sqlite3.DatabaseError, StoreError) as error:
        report.problems.append(f"the file cannot be read: {_line(error)}")
    finally:
        store.close()
    return report


def check_game(store: Store, game_id: str, report: CheckReport) -> list[str]:
    problems: list[str] = []
    row = store.game(game_id)
    assert row is not None
    for column in JSON_COLUMNS:
        try:
            json.loads(row[column] or "null")
        except (TypeError, ValueError) as error:
            problems.append(f"column {column} is not JSON ({_line(error)})")
    try:
        rules = load_game(str(row["game"]), Path(row["pack_path"]) if row["pack_path"] else None)
    except (UnknownGame, ValueError, OSError) as error:
        return [*problems, f"its rules cannot be loaded: {_line(error)}"]
    actions = store.actions(game_id)
    report.actions += len(actions)
    if [int(a["seq"]) for a in actions] != list(range(1, int(row["head_seq"]) + 1)):
        problems.append(f"its actions are not numbered 1..{row['head_seq']}")
    by_seq = {int(a["seq"]): a for a in actions}
    for snap in store.snapshots(game_id):
        report.snapshots += 1
        problem = _snapshot_problem(rules, snap, by_seq.get(int(snap["seq"])))
        if problem is not None:
            problems.append(f"snapshot at action {snap['seq']}: {problem}")
    if row["status"] == "setup":
        return problems
    try:
        lines = export_lines(store, game_id)
        result = verify(lines, pack=Path(row["pack_path"]) if row["pack_path"] else None)
    except (RecordError, ValueError, KeyError, TypeError) as error:
        return [*problems, f"its record cannot be read: {_line(error)}"]
    problems += result.problems
    if not result.problems and actions and result.final_hash != row["state_hash"]:
        problems.append("its log replays to another state than the game row records")
    return problems


def _snapshot_problem(rules: Any, snap: dict[str, Any], action: dict[str, Any] | None
                      ) -> str | None:
    try:
        state = rules.load_state(unpack_state(bytes(snap["state"])))
    except (ValueError, TypeError) as error:
        return f"does not load ({_line(error)})"
    digest = state.state_hash()
    if digest != snap["state_hash"]:
        return "its state does not hash to its recorded hash"
    if action is not None and action["state_hash"] != digest:
        return "its state is not its action's"
    return None


def _line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 160 else text[:157] + "..."
