"""``umpire bench store``: what a long game costs to store, to resume, to roll back and undo.

It plays a real Turning Point: Stalingrad game (the historical scenario, seeded random legal
orders) through ``GameService.submit`` with the service's default settings (an idempotency
key per order, as the frontends pass one). Whenever a random game reaches a result, the GM
rolls it back 40 actions, as after a dispute, and play goes on, until ``--actions``
(default 5,000) actions are stored. At 100 actions and at the end it copies the database
and measures, each in CPU time:

* bytes per action: the game's rows (actions, snapshots, idempotency results) divided by
  its actions, and the database file's size per action (target <= 5 KB);
* load / resume: a fresh service rebuilding the current state (newest snapshot plus the
  replay of the actions after it; target <= 30 ms at the end);
* a GM rollback of the last few active actions (2 to 11), and a player's undo of an order
  just given (a standing order: no dice, nothing revealed) at ten successive places (three
  in a run of fewer than 1,000 actions), on a running service, each the mean over its
  places. Their cost must not depend on the game's length (target: with the whole log /
  with 100 actions <= 1.5), so both are measured at the same position: at 100 actions, and
  with every action stored after the GM has rolled the game back to that 100th action (a
  rollback replays from the newest snapshot before its target, up to the snapshots' 20 ms
  budget, depending on where the target falls between two snapshots and on the game's
  stage — the same at the same position).

With ``--db postgresql://…`` it then runs several writer processes at once on SQLite and on
PostgreSQL, side by side (:mod:`bench.writers`; ``umpire bench writers`` alone measures
SQLite's).

Run: ``uv run umpire bench store`` (``--actions N``).
"""

from __future__ import annotations

import shutil
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from bench.common import Figures, Out, Table, best_cpu, measure, percentile  # noqa: E402

TARGET_BYTES = 5 * 1024
TARGET_LOAD_MS = 30.0
TARGET_GROWTH = 1.5
FIRST_MARK = 100
ROLLBACK_ON_END = 40
#: Places rollback and undo are measured at (a quick run, under 1,000 actions: three).
PLACES = 10


def copy_db(source: Path, target: Path) -> None:
    """A consistent copy of a live database (SQLite's backup API)."""
    src, dst = sqlite3.connect(str(source)), sqlite3.connect(str(target))
    src.backup(dst)
    src.close()
    dst.close()


def play(path: Path, actions: int, marks: list[int], folder: Path
         ) -> tuple[str, dict[int, Path], list[float], int]:
    """(game id, a copy of the database at each mark, submit CPU seconds, GM rollbacks)."""
    from bot.service import GameService
    from bot.store import Store

    service = GameService(Store(path))
    table = Table(service, "stalingrad", "historical", seed=1)
    copies: dict[int, Path] = {}
    submit: list[float] = []
    rollbacks = 0
    stored = 0
    while stored < actions or len(copies) < len(marks):
        step = table.next_order()
        if step is None:  # the game is over: the GM takes it back a little
            back = service.store.last_actions(table.game_id, ROLLBACK_ON_END + 1)
            done = service.rollback(table.game_id, table.gm, int(back[0]["seq"]),
                                    "bench: the game goes on")
            if not done.ok:
                raise RuntimeError(f"rollback refused: {done.error}")
            rollbacks += 1
        else:
            actor, text = step
            clock, result = measure(lambda a=actor, t=text: service.submit(
                table.game_id, a, t, table.key()))
            if not result.ok:
                raise RuntimeError(f"the bench game refused {text!r}: {result.error}")
            submit.append(clock.cpu)
        info = service.info(table.game_id)
        stored = info.head_seq
        for mark in marks:  # a game in play (not one just ended: the GM takes it back first)
            if mark not in copies and stored >= mark and info.status == "active":
                copies[mark] = folder / f"at-{mark}.db"
                copy_db(path, copies[mark])
    service.store.close()
    return table.game_id, copies, submit, rollbacks


def sizes(path: Path, game_id: str) -> dict[str, float]:
    """Bytes of the game's rows by table, and of the whole file, per stored action."""
    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        actions = conn.execute("SELECT count(*) FROM actions WHERE game_id = ?",
                               [game_id]).fetchone()[0]
        columns = {
            "action rows": "SELECT sum(coalesce(length(text), 0) + coalesce(length(order_json), 0)"
                       " + coalesce(length(payload), 0) + length(rolls) + length(events)"
                       " + length(applied) + length(state_hash) + length(actor)"
                       " + coalesce(length(side), 0) + 40) FROM actions WHERE game_id = ?",
            "snapshots": "SELECT sum(length(state) + length(state_hash) + 24) FROM snapshots "
                         "WHERE game_id = ?",
            "idempotency": "SELECT sum(length(key) + length(actor) + length(result)"
                           " + coalesce(length(request), 0) + 16) FROM idempotency "
                           "WHERE game_id = ?",
        }
        out = {name: float(conn.execute(sql, [game_id]).fetchone()[0] or 0) / actions
               for name, sql in columns.items()}
        conn.execute("VACUUM")
    finally:
        conn.close()
    out["file"] = path.stat().st_size / actions
    out["actions"] = float(actions)
    return out


def head_seq(path: Path, game_id: str) -> int:
    conn = sqlite3.connect(str(path))
    try:
        return int(conn.execute("SELECT head_seq FROM games WHERE id = ?",
                                [game_id]).fetchone()[0])
    finally:
        conn.close()


def is_active(path: Path, game_id: str, seq: int) -> bool:
    """Whether action ``seq`` is still part of the game (not reverted since)."""
    conn = sqlite3.connect(str(path))
    try:
        row = conn.execute("SELECT reverted_by FROM actions WHERE game_id = ? AND seq = ?",
                           [game_id, seq]).fetchone()
    finally:
        conn.close()
    return row is not None and row[0] is None


def costs(path: Path, game_id: str, folder: Path, at: int | None = None,
          load_only: bool = False, places: int = PLACES) -> dict[str, float]:
    """CPU seconds to load the game in a fresh service, to roll back a few of its last
    actions and to undo a standing order just given (each on its own copy of the
    database). ``at``: rollback and undo are measured once the GM has rolled the game back
    to that action (the same position as a shorter log's, with this log's length)."""
    from bot.service import Actor, GameService
    from bot.store import Store

    def fresh(name: str) -> Any:
        copy = folder / f"{path.stem}-{name}.db"
        shutil.copy(path, copy)
        return GameService(Store(copy))

    loader = fresh("load")
    out = {"load": best_cpu(lambda: loader.load_state(game_id), 5)}
    info = loader.info(game_id)
    gm = next(s for s in info.seats if s.role == "gm")
    gm_actor = Actor.discord(str(gm.discord_id))
    loader.store.close()
    if load_only:
        return out

    def positioned(name: str) -> Any:
        """A running service (the state at hand) on a copy, at the measured position."""
        service = fresh(name)
        if at is not None:
            done = service.rollback(game_id, gm_actor, at, "bench: the same position")
            if not done.ok:
                raise RuntimeError(f"rollback to {at} refused: {done.error}")
        service.load_state(game_id)
        # a running service's rules are warm: the board and the notation built (a new
        # service builds them on first use, about 10 ms for TP:S)
        legal = service.legal_orders(game_id, gm_actor)
        if legal:
            service.rules(game_id).parse(legal[0])
        return service

    def rollback_once(back: int) -> float:
        service = positioned("rollback")
        target = [int(a["seq"]) for a in service.store.last_actions(game_id, back + 20)
                  if a["kind"] != "rollback"][-back - 1]
        clock, result = measure(lambda: service.rollback(game_id, gm_actor, target, "bench"))
        if not result.ok:
            raise RuntimeError(f"rollback refused: {result.error}")
        service.store.close()
        return clock.cpu

    def undo_once(first: int) -> float:
        service = positioned("undo")
        for _ in range(first):  # the game a little further on: another place between snapshots
            side = service.info(game_id).to_act or "german"
            seat = next(s for s in service.info(game_id).seats if s.side == side)
            mover = Actor.discord(str(seat.discord_id))
            service.submit(game_id, mover, service.legal_orders(game_id, mover, side)[-1],
                           side=side)
            info = service.info(game_id)
            if info.status != "active":  # that order ended the game: the GM takes it back
                service.rollback(game_id, gm_actor, info.head_seq - 1, "bench: go on")
                break
        side = service.info(game_id).to_act or "german"
        seat = next(s for s in service.info(game_id).seats if s.side == side)
        player = Actor.discord(str(seat.discord_id))
        given = service.submit(game_id, player, "standing advantage never", side=side)
        if not given.ok:
            raise RuntimeError(f"standing order refused: {given.error}")
        clock, result = measure(lambda: service.undo(game_id, player))
        if not result.ok:
            raise RuntimeError(f"undo refused: {result.error}")
        service.store.close()
        return clock.cpu

    # A running service's process has replayed and rolled back before: the first rollback
    # in a process also pays the rules' start-up (about 75 ms). One of each, untimed, first.
    rollback_once(2)
    undo_once(0)
    # The mean over the places: a replay from the newest snapshot before the target costs
    # up to the 20 ms budget, depending on where the target falls between two snapshots.
    out["rollback"] = statistics.mean(rollback_once(back) for back in range(2, 2 + places))
    out["undo"] = statistics.mean(undo_once(first) for first in range(places))
    return out


def run(actions: int = 5000, out: Out = print, db: str | None = None) -> dict[str, float]:
    """The single-writer figures on SQLite; with ``db`` (a ``postgresql://`` URL), then
    :mod:`bench.writers` on both backends."""
    from bot.runtime import tune_gc

    actions = max(actions, FIRST_MARK + 10)
    marks = [FIRST_MARK, actions]
    tune_gc()  # the bot's and the mail gateway's process settings
    figures = Figures()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        out(f"playing a Turning Point: Stalingrad game to {actions} stored actions through "
            "GameService.submit …")
        game_id, copies, submit, rollbacks = play(folder / "store.db", actions, marks, folder)
        out(f"  submit CPU p50 {1000 * percentile(submit, 0.5):.2f} ms, p95 "
            f"{1000 * percentile(submit, 0.95):.2f} ms; {rollbacks} GM rollbacks of "
            f"{ROLLBACK_ON_END} actions when a game ended")
        at = head_seq(copies[FIRST_MARK], game_id)
        places = PLACES if actions >= 1000 else 3
        small = {**sizes(copies[FIRST_MARK], game_id),
                 **costs(copies[FIRST_MARK], game_id, folder, places=places)}
        big = {**sizes(copies[actions], game_id),
               **costs(copies[actions], game_id, folder, load_only=True)}
        # rollback and undo at the very position of the first mark, with the whole log
        rewind = at if is_active(copies[actions], game_id, at) else None
        big.update({key: value for key, value in costs(
            copies[actions], game_id, folder, rewind, places=places).items() if key != "load"})
    out(f"  {'':34}{FIRST_MARK:>12}{actions:>12}  (stored actions)")
    def row(label: str, key: str, scale: float, unit: str) -> None:
        out(f"  {label:<34}{small[key] * scale:>12.1f}{big[key] * scale:>12.1f}  {unit}")

    row("bytes per action: action rows", "action rows", 1, "B")
    row("                  snapshots", "snapshots", 1, "B")
    row("                  idempotency", "idempotency", 1, "B")
    row("                  the file", "file", 1, "B")
    row("load / resume (fresh service)", "load", 1000, "ms CPU")
    row(f"rollback of the last 2-{places + 1} actions", "rollback", 1000, "ms CPU (*)")
    row("undo of an order just given", "undo", 1000, "ms CPU (*)")
    out(f"  (*) at the position of action {at}: with {at} actions stored, and with "
        f"{actions} after the GM rolled the game back to it" if rewind is not None else
        f"  (*) at the end of each log (action {at} was reverted since: no same position)")
    figures.add("submit CPU p50", 1000 * percentile(submit, 0.5), None, " ms")
    figures.add(f"bytes per action at {actions} actions (file)", big["file"], TARGET_BYTES,
                " B")
    figures.add(f"load / resume at {actions} actions", 1000 * big["load"], TARGET_LOAD_MS,
                " ms")
    figures.add(f"rollback at {actions} / at {FIRST_MARK} actions",
                big["rollback"] / small["rollback"], TARGET_GROWTH, "x")
    figures.add(f"undo at {actions} / at {FIRST_MARK} actions", big["undo"] / small["undo"],
                TARGET_GROWTH, "x")
    figures.report(out)
    if db is not None:
        from bench import writers

        out("")
        out("several writer processes (bench/writers.py):")
        writers.run(min(actions, 60), out, db)  # TP:S orders now: its own default size
    return figures.as_dict()


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
