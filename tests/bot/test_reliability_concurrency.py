"""Concurrency: conflicting orders to one game at once, while other games go on.

One game, red to move: 50 tasks at once send red's ``move r2 3`` (20 distinct messages
and 10 retries of one message) and blue's ``move b2 3`` (20). The only legal serial
outcome is one applied ``move r2 3``: after it, red's moves are out of turn and blue's
lead into an enemy. Meanwhile 20 other games each play 12 orders in turn.
"""

from __future__ import annotations

import asyncio
import itertools
import threading

from bot.records import export_lines, verify
from bot.service import GameService, SubmitResult
from bot.store import Store
from tests.bot.test_service_support import BLUE, RED, make_service, new_game
from tests.dbs import NewDb

OTHER_GAMES = 20
ORDERS_EACH = 12


async def play_other_game(service: GameService, game_id: str) -> list[SubmitResult]:
    results = [await service.submit_async(game_id, RED, "trap 1")]
    for number in range(ORDERS_EACH - 1):
        actor = RED if number % 2 == 0 else BLUE
        results.append(await service.submit_async(game_id, actor, "pass", f"o-{number}"))
    return results


async def storm(service: GameService, game_id: str, others: list[str]
                ) -> tuple[list[SubmitResult | BaseException], list[list[SubmitResult]]]:
    conflicting = (
        [service.submit_async(game_id, RED, "move r2 3", f"red-{n}") for n in range(20)]
        + [service.submit_async(game_id, RED, "move r2 3", "red-retried") for _ in range(10)]
        + [service.submit_async(game_id, BLUE, "move b2 3", f"blue-{n}") for n in range(20)]
    )
    side_games = asyncio.gather(*(play_other_game(service, other) for other in others))
    results = await asyncio.gather(*conflicting, return_exceptions=True)
    return results, await side_games


def test_fifty_conflicting_orders_one_legal_outcome(new_db: NewDb) -> None:
    service = make_service(new_db("busy"))
    game_id = new_game(service)
    assert service.submit(game_id, RED, "trap 1").ok
    others = [new_game(service) for _ in range(OTHER_GAMES)]
    results, side = asyncio.run(storm(service, game_id, others))
    assert all(isinstance(r, SubmitResult) for r in results), "an exception escaped"
    typed = [r for r in results if isinstance(r, SubmitResult)]
    fresh = [r for r in typed if r.ok and not r.duplicate]
    assert len(fresh) == 1 and fresh[0].applied == ["move r2 3"]
    winner = fresh[0]
    for result in typed:
        if result is winner:
            continue
        if result.duplicate:
            assert result.seqs == winner.seqs
        else:
            assert result.status == "refused"
            assert result.error_rule in ("turn", "D2"), result.error
    rows = service.store.actions(game_id)
    assert [(r["seq"], r["text"]) for r in rows] == [(1, "trap 1"), (2, "move r2 3")]
    for other, played in zip(others, side, strict=True):
        assert all(r.status == "applied" for r in played)
        assert service.info(other).head_seq == ORDERS_EACH
        assert verify(export_lines(service.store, other)).ok


def test_two_services_on_one_file_cannot_both_apply(new_db: NewDb) -> None:
    """Two services (as two processes would: separate locks and caches) race on one game."""
    shared = new_db("shared")
    first = make_service(shared)
    second = GameService(Store(shared))
    game_id = new_game(first)
    first.submit(game_id, RED, "trap 1")
    second.info(game_id)
    results: list[SubmitResult] = []
    guard = threading.Lock()

    def hammer(service: GameService, tag: str) -> None:
        for number in range(40):
            actor = RED if number % 2 == 0 else BLUE
            result = service.submit(game_id, actor, "pass", f"{tag}-{number}")
            with guard:
                results.append(result)

    threads = [threading.Thread(target=hammer, args=(s, t))
               for s, t in ((first, "a"), (second, "b"), (first, "c"), (second, "d"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    applied = [r for r in results if r.ok]
    rows = first.store.actions(game_id)
    assert len(rows) == 1 + len(applied)
    assert sorted(s for r in applied for s in r.seqs) == list(range(2, len(rows) + 1))
    sides = [r["side"] for r in rows[1:]]
    assert all(a != b for a, b in itertools.pairwise(sides)), "two passes in a row"
    assert verify(export_lines(first.store, game_id)).ok
    assert second.load_state(game_id).state_hash() == first.load_state(game_id).state_hash()
