"""Through the fake Discord: deadlines are bounded (issue 27.8's loose ends on Discord).

``/game start deadline_hours:`` and ``/game deadline`` read hours through
:mod:`bot.durations` (more than nothing, at most 60 days) and answer a refusal clearly;
``/game status`` shows a deadline stored endless before the bound existed.
"""

from __future__ import annotations

from tests.bot import test_discord_duel
from tests.bot.test_discord_duel import DUEL, Table
from tests.fakediscord.harness import served

table = test_discord_duel.table  # the fixture: a GM, ann, bob and eve on a fake server


async def _seated(t: Table) -> None:
    await t.h.slash(t.gm, t.fake.general, "game new", game=DUEL)
    (t.thread,) = t.fake.threads()
    await t.h.slash(t.ann, t.game_thread, "game join", side="red")
    await t.h.slash(t.bob, t.game_thread, "game join", side="blue")


async def test_27_8_a_huge_deadline_at_the_start_is_refused_clearly(table: Table) -> None:
    """27.8: ``/game start deadline_hours:1e12`` is refused privately, saying the bound,
    and the game is not started; a deadline within the bound starts it."""
    t = table
    await _seated(t)
    service = served(t.h)
    for hours in (1e12, 1441.0):
        refused = await t.h.slash(t.gm, t.game_thread, "game start", deadline_hours=hours)
        assert refused.ephemeral and "at most 60 days" in refused, refused
        assert service.info("duel1").status != "active"
    too_long = await t.h.slash(t.gm, t.game_thread, "game deadline", hours=1e9)
    assert too_long.ephemeral and "at most 60 days" in too_long
    started = await t.h.slash(t.gm, t.game_thread, "game start", deadline_hours=1440.0)
    assert "commitment" in started
    info = service.info("duel1")
    assert info.status == "active" and info.deadline_at is not None


async def test_27_8_status_shows_a_deadline_stored_endless(table: Table) -> None:
    """27.8: a deadline stored as infinite before the bound existed reads as the longest
    period from now in ``/game status`` (no overflow, an answer)."""
    t = table
    await _seated(t)
    await t.h.slash(t.gm, t.game_thread, "game start", deadline_hours=24.0)
    service = served(t.h)
    service.store.update_game("duel1", {"deadline_seconds": float("inf"),
                                        "deadline_at": float("inf")})
    status = await t.h.slash(t.bob, t.game_thread, "game status")
    assert status.ephemeral and "Deadline: <t:" in status and ":R>" in status, status
