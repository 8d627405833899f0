"""The service's caches are bounded: states within a memory budget (least recently used
dropped first, rebuilt from the store when needed again), one lock per game in use."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

from bot.caches import MEMORY_PER_BYTE, GameLocks, StateCache
from bot.records import export_lines, verify
from tests.bot.test_service_support import BLUE, RED, make_service, new_game, play


def test_the_least_recently_used_state_goes_first() -> None:
    cache: StateCache[str] = StateCache(budget=3 * 10 * MEMORY_PER_BYTE)
    for key in "abc":
        cache.put(key, key.upper(), 10)
    assert cache.get("a") == "A"  # now b is the least recently used
    cache.put("d", "D", 10)
    assert cache.get("b") is None and [cache.get(k) for k in "acd"] == ["A", "C", "D"]
    assert cache.used == 3 * 10 * MEMORY_PER_BYTE
    cache.put("a", "A2", 20)  # replacing an entry counts its new size only
    assert len(cache) == 2 and cache.get("a") == "A2" and cache.used <= cache.budget


def test_a_state_bigger_than_the_budget_is_not_kept() -> None:
    cache: StateCache[str] = StateCache(budget=100)
    cache.put("big", "x", 1000)
    assert cache.get("big") is None and cache.used == 0
    cache.pop("missing")  # no error


def test_a_game_lock_lives_while_it_is_used() -> None:
    locks = GameLocks()
    held = locks["g1"]
    assert locks["g1"] is held and len(locks) == 1
    entered = threading.Event()

    def other() -> None:
        with locks["g1"]:
            entered.set()

    with held:
        worker = threading.Thread(target=other)
        worker.start()
        assert not entered.wait(0.1)  # the same lock: the other thread waits
    worker.join(5)
    assert entered.is_set()
    del held, worker
    gc.collect()
    assert len(locks) == 0


def test_games_beyond_the_budget_play_on_from_the_store(tmp_path: Path) -> None:
    service = make_service(tmp_path / "umpire.db", state_cache_bytes=1)  # keeps nothing
    games = [new_game(service) for _ in range(3)]
    for game_id in games:
        play(service, game_id, (RED, "trap 1"), (RED, "move r2 3"), (BLUE, "pass"))
    for game_id in games:
        assert verify(export_lines(service.store, game_id)).ok
    roomy = make_service(tmp_path / "umpire.db")
    for game_id in games:
        assert roomy.load_state(game_id) == service.load_state(game_id)
