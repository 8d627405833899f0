"""The secret set-up's guidance in the Discord DM flow (20.0, 19.1): what is left to place
and where, after every order; a 'done' that gives up mines is confirmed by a second one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakediscord import FakeDiscord, Harness, User, run_umpire

SOVIET = ["su76-1", "su76-2", "su85-1", "su122-1", "su122-2", "at57-1", "at57-2", "at76-1",
          "at76-2", *(f"infsu-{n}" for n in range(1, 9))]


@pytest.fixture
async def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[tuple[Harness, User, User, User]]:
    fake = FakeDiscord()
    gm, gerd, sasha = fake.add_user("gm", admin=True), fake.add_user("gerd"), \
        fake.add_user("sasha")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch,
                          seed_source=lambda n: b"\x03" * n, game_ids=["kursk"]) as harness:
        yield harness, gm, gerd, sasha


async def test_the_dm_says_what_is_left_and_where_and_confirms_a_forfeiting_done(
        table: tuple[Harness, User, User, User]) -> None:
    h, gm, gerd, sasha = table
    fake = h.fake
    await h.open_game(gm, "tanks", "kursk-salient", {"german": gerd, "soviet": sasha})
    prompt = "\n".join(m.content for m in fake.dms_to(sasha))
    assert "Left to place:" in prompt and "17 unit(s) to place" in prompt
    assert "6 of 6 mined hexes" in prompt and "columns 12-31, rows 13-26" in prompt
    assert "Left to place" not in "\n".join(m.content for m in fake.dms_to(gerd))
    dm = fake.dm_channel(sasha)
    lines = [f"place {unit} {12 + i:02d}13" for i, unit in enumerate(SOVIET)]
    reply = await h.slash(sasha, dm, "order", text="\n".join(lines[:16]))
    assert "Applied" in reply and "1 unit(s) to place: infsu-8" in reply
    reply = await h.slash(sasha, dm, "order", text=f"{lines[16]}\nmine 2020")
    assert "5 of 6 mined hexes" in reply and "send `done` twice" in reply
    first = await h.slash(sasha, dm, "tanks done")
    assert "Done now gives up: 5 mined hex(es)" in first and "again to confirm" in first
    second = await h.slash(sasha, dm, "tanks done")
    assert "Applied: `done`" in second
    assert not any("2020" in m.content for m in fake.public_messages())


async def test_20_0_placed_so_far_is_shown_to_its_owner_only(
        table: tuple[Harness, User, User, User]) -> None:
    """20.0, 19.1: after each set-up order in her DM the Soviet player reads what she has
    placed so far (units, hexes, facing, mines); that list and her mined hex never reach the
    German, the GM or the thread (her units set up in the open here, 25.3: only the mines
    are secret)."""
    h, gm, gerd, sasha = table
    fake = h.fake
    await h.open_game(gm, "tanks", "kursk-salient", {"german": gerd, "soviet": sasha})
    dm = fake.dm_channel(sasha)
    reply = await h.slash(sasha, dm, "order", text="place su76-1 1213\nplace su76-2 1413")
    assert reply.ephemeral and "Placed so far" in reply, reply
    assert "su76-1" in reply.text.split("Placed so far")[1].split("Left to place")[0]
    reply = await h.slash(sasha, dm, "order", text="mine 2020")
    placed = reply.text.split("Placed so far")[1].split("Left to place")[0]
    assert "1213" in placed and "1413" in placed and "2020" in placed, placed
    others = [*fake.public_messages(), *fake.dms_to(gerd), *fake.dms_to(gm)]
    leaked = [m.content for m in others if "Placed so far" in m.content or "2020" in m.content]
    assert leaked == [], leaked
