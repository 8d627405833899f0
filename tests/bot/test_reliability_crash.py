"""Crash safety: a process submitting orders is killed with SIGKILL again and again.

After every kill the database must open cleanly, pass its integrity check, hold every
action the dead process had acknowledged, hold no half-written submission (a two-line
submission is both rows or neither; a rollback is its row and all its marks or neither),
and replay (snapshot + tail, and from scratch) to the stored state hash.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

from bot.records import export_lines, verify
from bot.service import GameService
from bot.store import Store
from tests.bot.test_service_support import BLUE, GM_ACTOR, RED, new_game
from tests.dbs import NewDb
from tests.waiting import until

KILLS = 24


def worker(db: str, game_id: str, acks: str, ready: str, lap: int) -> None:
    """Submit orders forever, writing each acknowledged sequence number to ``acks``."""
    service = GameService(Store(db, synchronous="FULL"), snapshot_every=7)
    handle = os.open(acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    Path(ready).touch()
    number = 0
    while True:
        number += 1
        info = service.info(game_id)
        actor = RED if info.to_act == "red" else BLUE
        if number % 11 == 0 and info.head_seq > 3:
            result = service.rollback(game_id, GM_ACTOR, info.head_seq - 2, "crash test")
        elif number % 3 == 0:
            result = service.submit(game_id, actor, "standing casualty lose\npass",
                                    f"{lap}-{number}")
        else:
            result = service.submit(game_id, actor, "pass", f"{lap}-{number}")
        if result.status == "applied":
            os.write(handle, ("".join(f"{seq}\n" for seq in result.seqs)).encode())


def worker_context(db: str) -> multiprocessing.context.BaseContext:
    """Fork for SQLite; for PostgreSQL a fork server (a process without the test's
    threads and connection pools: forking those is not safe)."""
    if not db.startswith("postgresql"):
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["bot.service", "bot.store.postgres", __name__])
    return context


def check_store(db: str, game_id: str, acked: set[int]) -> int:
    store = Store(db)
    try:
        assert store.integrity_check() == "ok"
        game = store.game(game_id)
        assert game is not None
        rows = store.actions(game_id)
        seqs = [row["seq"] for row in rows]
        assert seqs == list(range(1, len(rows) + 1))
        assert game["head_seq"] == len(rows)
        assert acked <= set(seqs), f"lost acknowledged actions {sorted(acked - set(seqs))}"
        by_seq = {row["seq"]: row for row in rows}
        for row in rows:
            if (row["text"] or "").startswith("standing"):
                follow = by_seq.get(row["seq"] + 1)
                assert follow is not None and follow["text"] == "pass", "half a submission"
            if row["kind"] == "rollback":
                payload = json.loads(row["payload"])
                marked = [r["seq"] for r in rows if r["reverted_by"] == row["seq"]]
                assert marked == payload["reverted"], "a rollback without all its marks"
        for key in store.query("SELECT result FROM idempotency WHERE game_id = ?", [game_id]):
            assert set(json.loads(key["result"])["seqs"]) <= set(seqs)
        fresh = GameService(store)
        assert fresh.load_state(game_id).state_hash() == game["state_hash"]
        replayed = verify(export_lines(store, game_id))
        assert replayed.ok, replayed.problems
        assert replayed.final_hash is not None
        return len(rows)
    finally:
        store.close()


def test_sigkill_loop_never_loses_or_half_writes(tmp_path: Path, new_db: NewDb) -> None:
    db = new_db("crash")
    setup = GameService(Store(db))
    game_id = new_game(setup)
    setup.submit(game_id, RED, "trap 1")
    setup.store.close()
    acks = tmp_path / "acks"
    rng = random.Random(20240601)
    context = worker_context(db)
    grew = 0
    for lap in range(KILLS):
        ready = tmp_path / f"ready-{lap}"
        process = context.Process(target=worker,
                                  args=(str(db), game_id, str(acks), str(ready), lap))
        process.start()
        until(ready.exists, f"worker {lap} to be ready")
        time.sleep(rng.uniform(0.005, 0.12))
        assert process.pid is not None
        os.kill(process.pid, signal.SIGKILL)
        process.join()
        assert process.exitcode == -signal.SIGKILL
        acked = {int(line) for line in acks.read_text().split()} if acks.exists() else set()
        before = grew
        grew = check_store(db, game_id, acked)
        assert grew >= before
    print(f"{grew} actions over {KILLS} kills")
    assert grew > KILLS, "the workers hardly wrote anything: the test proved nothing"
