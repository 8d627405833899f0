"""Four processes, many games, conflicting submitters, one PostgreSQL database.

Every process plays every game at once: it reads whose turn it is and submits that side's
order with its own idempotency key, sometimes sends a key again, and ticks deadlines. The
processes race on every game position. Afterwards:

* nothing was lost: every action a process was told was stored is in the log, under the
  sequence numbers it was told, with its text;
* nothing was duplicated: each key stored one action; a key sent again got the first
  result back; each game's log is numbered 1..head with no gap;
* every game's state hash is what a fresh replay of its record gives, and what a fresh
  service rebuilds from snapshots;
* deadlines fired once: only the holder of the deadline lease ticked, each expiry is one
  action, and the expiries the processes were told of are the deadline actions stored.

The default run keeps it small; the full size (4 × 50 games) is a ``soak`` test.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.records import export_lines, verify
from bot.service import GameService
from bot.store import Store
from tests.bot.test_reliability_crash import worker_context
from tests.bot.test_service_support import BLUE, DUEL, GM_ACTOR, RED

PROCESSES = 4
DEADLINE_S = 1.0


def worker(url: str, games: list[str], rounds: int, out: str, number: int,
           finished: Any) -> None:
    service = GameService(Store(url), snapshot_every=5)
    rng = random.Random(number)
    sent: list[str] = []
    notices: Counter[str] = Counter()
    last_tick = 0.0
    with open(out, "w", encoding="utf-8") as log:
        for turn in range(rounds):
            order = games[:]
            rng.shuffle(order)
            for game_id in order:
                if time.monotonic() - last_tick > 0.2:
                    last_tick = time.monotonic()
                    notices.update(n.kind for n in service.tick())
                if sent and rng.random() < 0.15:
                    key, game, actor = json.loads(rng.choice(sent))
                    result = service.submit(game, RED if actor == "red" else BLUE, "pass",
                                            key)
                    log.write(json.dumps({"game": game, "key": key, "again": True,
                                          "status": result.status, "seqs": result.seqs,
                                          "duplicate": result.duplicate}) + "\n")
                info = service.info(game_id)
                if info.to_act is None:
                    continue
                key = f"p{number}-{game_id}-{turn}"
                result = service.submit(game_id, RED if info.to_act == "red" else BLUE,
                                        "pass", key)
                if result.ok:
                    sent.append(json.dumps([key, game_id, info.to_act]))
                log.write(json.dumps({"game": game_id, "key": key, "again": False,
                                      "status": result.status, "seqs": result.seqs,
                                      "duplicate": result.duplicate,
                                      "rule": result.error_rule}) + "\n")
        deadline = time.monotonic() + 2.5 * DEADLINE_S
        while time.monotonic() < deadline:  # let deadlines run out and be played
            notices.update(n.kind for n in service.tick())
            time.sleep(0.1)
        log.write(json.dumps({"notices": dict(notices), "instance": service.instance}) + "\n")
    # Nobody exits before everyone is done ticking: a lease whose holder's process is gone
    # is taken over at once (as after a kill), which is right, but would make a second
    # ticker here whenever the holder finished first (on a busy machine it often does).
    finished.wait(600)
    service.store.close()


def build(url: str, games: int, timed: int) -> tuple[list[str], list[str]]:
    service = GameService(Store(url), seed_source=lambda n: bytes(range(n)))
    played, deadlined = [], []
    for number in range(games + timed):
        info = service.create_game(GM_ACTOR, DUEL)
        service.seat(info.id, GM_ACTOR, "red", RED)
        service.seat(info.id, GM_ACTOR, "blue", BLUE)
        if number < games:
            service.start(info.id, GM_ACTOR)
            assert service.submit(info.id, RED, "trap 1").ok
            played.append(info.id)
        else:
            service.start(info.id, GM_ACTOR, deadline_seconds=DEADLINE_S)
            assert service.submit(info.id, RED, "trap 1").ok
            deadlined.append(info.id)
    service.store.close()
    return played, deadlined


def run_processes(url: str, tmp_path: Path, games: int, rounds: int, timed: int) -> None:
    played, deadlined = build(url, games, timed)
    context = worker_context(url)
    logs = [tmp_path / f"worker-{n}.jsonl" for n in range(PROCESSES)]
    finished = context.Barrier(PROCESSES)
    processes = [context.Process(target=worker,
                                 args=(url, played, rounds, str(log), n, finished))
                 for n, log in enumerate(logs)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=900)
        assert process.exitcode == 0, f"a worker failed ({process.exitcode})"
    lines = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    results = [line for line in lines if "key" in line]
    closing = [line for line in lines if "notices" in line]
    check(url, played, deadlined, results, closing)


def check(url: str, played: list[str], deadlined: list[str], results: list[dict[str, Any]],
          closing: list[dict[str, Any]]) -> None:
    store = Store(url)
    try:
        fresh = [r for r in results if r["status"] != "refused" and not r["duplicate"]]
        refused = Counter(r.get("rule") for r in results if r["status"] == "refused")
        assert set(refused) <= {"turn", "busy", None}, refused
        assert len(fresh) > len(played), "the processes hardly played"
        assert refused["turn"] > 0, "the submitters never conflicted: the test proved nothing"
        by_key: dict[str, list[int]] = {}
        for result in fresh:
            assert result["key"] not in by_key, f"key {result['key']} stored twice"
            by_key[result["key"]] = result["seqs"]
        for result in results:
            if result["duplicate"]:  # a key sent again: the first result, nothing new
                assert result["seqs"] == by_key[result["key"]], result
        told = Counter()
        for game_id in played + deadlined:
            row = store.game(game_id)
            assert row is not None
            rows = store.actions(game_id)
            assert [r["seq"] for r in rows] == list(range(1, row["head_seq"] + 1))
            keys = store.query("SELECT key FROM idempotency WHERE game_id = ?", [game_id])
            assert len(keys) == len({k["key"] for k in keys})
            for result in fresh:
                if result["game"] == game_id:
                    for seq in result["seqs"]:  # acknowledged: stored, as it was told
                        assert rows[seq - 1]["text"] == "pass"
                        told[game_id] += 1
            deadline_actions = [r for r in rows if r["actor"] == "system"]
            if game_id in played:
                assert len(rows) == 1 + told[game_id] + len(deadline_actions)
            else:
                assert told[game_id] == 0 and len(rows) == 1 + len(deadline_actions)
            record = export_lines(store, game_id)
            replayed = verify(record)
            assert replayed.ok, replayed.problems
            assert replayed.final_hash == row["state_hash"]
            rebuilt = GameService(store, state_cache_bytes=0).load_state(game_id)
            assert rebuilt.state_hash() == row["state_hash"]
        timed_out = [r for g in deadlined for r in store.actions(g) if r["actor"] == "system"]
        assert timed_out, "no deadline ran out"
        for game_id in deadlined:  # one action per expiry: never two within one period
            times = [r["created"] for r in store.actions(game_id) if r["actor"] == "system"]
            assert all(b - a >= DEADLINE_S * 0.99 for a, b in itertools.pairwise(times))
        tickers = [c for c in closing if c["notices"].get("expired")]
        assert len(tickers) == 1, "more than one process ticked deadlines"
        expired = sum(c["notices"].get("expired", 0) for c in closing)
        assert expired == len(timed_out)
    finally:
        store.close()


def test_four_processes_conflicting_on_a_dozen_games(pg_url: str, tmp_path: Path) -> None:
    run_processes(pg_url, tmp_path, games=12, rounds=2, timed=2)


@pytest.mark.soak
def test_four_processes_conflicting_on_fifty_games(pg_url: str, tmp_path: Path) -> None:
    run_processes(pg_url, tmp_path, games=50, rounds=int(os.environ.get("UMPIRE_ROUNDS", "6")),
                  timed=6)
