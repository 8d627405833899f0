"""Faults: a process writing orders killed with SIGKILL, and damaged database files.

After every kill the file must open, pass SQLite's integrity check and ``umpire db check``
(every game replays from the start), and hold every action the dead process had
acknowledged. A damaged file — empty, truncated, overwritten, a bad snapshot, a broken
column — must give a one-line refusal or error, or a state rebuilt from what is sound;
never an exception, never a wrong state.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.kernel.game import Game
from bot.dbcheck import check_database
from bot.redteam.leaks import Tally
from bot.service import Actor, GameService
from bot.store import Store, StoreError

GM = Actor.discord("600")


def _new_game(db: Path, game: str, rnd: random.Random | None = None
              ) -> tuple[str, dict[str, Actor]]:
    """A started game; ``rnd``: its dice seed and id drawn from it (the same file for the
    same ``rnd``), else random."""
    service = (GameService(Store(db)) if rnd is None
               else GameService(Store(db), seed_source=rnd.randbytes))
    info = service.create_game(GM, game, game_id=None if rnd is None
                               else rnd.randbytes(6).hex())
    rules = service.rules(info.id)
    players = {str(side): Actor.discord(str(601 + n)) for n, side in enumerate(rules.sides)}
    for side, actor in players.items():
        service.seat(info.id, GM, side, actor)
    service.start(info.id, GM)
    service.store.close()
    return info.id, players


def worker(db: str, game_id: str, acks: str, seed: int) -> None:
    """Submit random legal orders for ever, writing each acknowledged action's number."""
    service = GameService(Store(db), snapshot_every=5)
    rules = service.rules(game_id)
    rnd = random.Random(seed)
    players = {str(side): Actor.discord(str(601 + n)) for n, side in enumerate(rules.sides)}
    handle = os.open(acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    number = 0
    while True:
        number += 1
        side = rules.acting_side(service.load_state(game_id))
        if side is None:
            head = service.info(game_id).head_seq
            result = service.rollback(game_id, GM, max(0, head - 3), "red team")
        elif number % 9 == 0 and service.info(game_id).head_seq > 3:
            result = service.rollback(game_id, GM, service.info(game_id).head_seq - 2, "red")
        else:
            legal = service.legal_orders(game_id, players[str(side)], str(side))
            text = "\n".join(rnd.sample(legal, min(len(legal), rnd.choice((1, 1, 2)))))
            result = service.submit(game_id, players[str(side)], text or "done",
                                    f"key-{seed}-{number}")
        if result.ok:
            os.write(handle, "".join(f"{seq}\n" for seq in result.seqs).encode())


def sigkills(folder: Path, tally: Tally, rnd: random.Random, kills: int,
             out: Callable[[str], None]) -> None:
    db = folder / "kill.db"
    game_id, _ = _new_game(db, "tanks")
    acks = folder / "acks"
    root = Path(__file__).resolve().parents[2]
    for lap in range(kills):
        process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from bot.redteam.faults import worker; "
             "worker(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))",
             str(db), game_id, str(acks), str(lap)],
            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rnd.uniform(1.0, 2.5))
        process.send_signal(signal.SIGKILL)
        process.wait()
        acked = {int(x) for x in acks.read_text().split()} if acks.exists() else set()
        problems = []
        try:
            store = Store(db)
            seqs = {int(r["seq"]) for r in store.actions(game_id)}
            store.close()
            lost = acked - seqs
            if lost:
                problems.append(f"lost acknowledged actions {sorted(lost)[:5]}")
        except StoreError as error:
            problems.append(str(error))
        report = check_database(db)
        problems += report.problems
        tally.count("faults: SIGKILL mid-write", bool(problems), "; ".join(problems))
    out(f"  killed a writer {kills} times")


@dataclass
class Healthy:
    """A healthy database holding one Stalingrad game twelve orders in (snapshots every
    three), the copies' source: its path, the game, its players and its state's hash."""

    path: Path
    game_id: str
    players: dict[str, Actor]
    truth: str
    rules: Game[Any]


def healthy_database(folder: Path, rnd: random.Random) -> Healthy:
    """The healthy database, the same for the same ``rnd`` (dice, id and orders drawn from
    it), so a seed of the damage finds the same bytes in the same place every run."""
    path = folder / "healthy.db"
    game_id, players = _new_game(path, "stalingrad", rnd)
    service = GameService(Store(path), snapshot_every=3)
    rules = service.rules(game_id)
    for _ in range(12):
        side = str(rules.acting_side(service.load_state(game_id)))
        legal = service.legal_orders(game_id, players[side], side)
        service.submit(game_id, players[side], rnd.choice(legal))
    truth = service.store.game(game_id)["state_hash"]  # type: ignore[index]
    service.store.close()
    with sqlite3.connect(path) as conn:  # every page in the file itself, none in the WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return Healthy(path, game_id, players, str(truth), rules)


def damaged_copy(healthy: Healthy, copy: Path, harm: Callable[[Path], None]) -> Path:
    shutil.copy(healthy.path, copy)
    for suffix in ("-wal", "-shm"):
        if Path(f"{healthy.path}{suffix}").exists():
            shutil.copy(f"{healthy.path}{suffix}", f"{copy}{suffix}")
    harm(copy)
    return copy


def overwrite(rnd: random.Random) -> Callable[[Path], None]:
    """64 bytes overwritten at a place in the file's last three quarters, both drawn from
    ``rnd`` (the same seed damages the same bytes the same way)."""

    def run(path: Path) -> None:
        data = bytearray(path.read_bytes())
        start = rnd.randrange(len(data) // 4, len(data) - 64)
        data[start:start + 64] = rnd.randbytes(64)
        path.write_bytes(bytes(data))
    return run


def probe(healthy: Healthy, path: Path, recovers: bool) -> str:
    """What is wrong with how a damaged copy is served ("" when nothing): its state loaded,
    then a 'pass' submitted. A refusal or a one-line store error is right; a state rebuilt
    wrong (where it must be rebuilt), an internal error or any other exception is not."""
    try:
        service = GameService(Store(path))
        try:
            state = service.load_state(healthy.game_id)
            if recovers and state.state_hash() != healthy.truth:
                return "rebuilt a wrong state"
            side = str(healthy.rules.acting_side(state))
            result = service.submit(healthy.game_id, healthy.players[side], "pass")
            if result.status == "refused" and result.error_rule == "internal":
                return f"an internal error: {result.error}"
        finally:
            service.store.close()
    except (StoreError, ValueError) as error:
        if recovers:
            return f"not recovered: {error}"
        if "\n" in str(error):
            return f"a many-line error: {error}"
    except Exception as error:  # the finding
        return f"{type(error).__name__}: {error}"
    return ""


def corruptions(folder: Path, tally: Tally, rnd: random.Random) -> None:
    healthy = healthy_database(folder, rnd)

    def sql(statement: str) -> Callable[[Path], None]:
        def run(path: Path) -> None:
            with sqlite3.connect(path) as conn:
                conn.execute(statement)
        return run

    def emptied(path: Path) -> None:
        path.write_bytes(b"")

    def truncated(path: Path) -> None:
        path.write_bytes(path.read_bytes()[:1000])

    # (what, the harm, whether the state is rebuilt, whether db check must see it)
    cases: list[tuple[str, Callable[[Path], None], bool, bool]] = [
        ("an empty file", emptied, False, True),
        ("a truncated file", truncated, False, True),
        ("bytes overwritten", overwrite(rnd), False, False),  # (may land on a free page)
        ("the newest snapshot broken", sql(
            "UPDATE snapshots SET state = X'7b22' WHERE seq = (SELECT MAX(seq) FROM snapshots)"),
         True, True),
        ("every snapshot broken", sql("UPDATE snapshots SET state = X'00'"), True, True),
        ("a broken JSON column", sql("UPDATE games SET forced_dice = '[{'"), False, True),
    ]
    for name, harm, recovers, visible in cases:
        for attempt in range(3):
            # A fresh copy each time: an order the probe's 'pass' plays (TP:S may allow it)
            # moves the game on, and the next rebuild would be compared with the old state.
            path = damaged_copy(healthy, folder / f"{name.replace(' ', '-')}-{attempt}.db",
                                harm)
            problem = probe(healthy, path, recovers)
            tally.count("faults: damaged databases", bool(problem), f"{name}: {problem}")
        report = check_database(path)
        if visible:
            tally.count("faults: db check finds the damage", not report.problems, name)
