"""Stalin's Tanks through the fake Discord: hidden set-up in DMs (where Discord offers only
global commands), a scripted stretch of the Pakfront scenario to its end, a scan proving no
hidden unit shows before its reveal, and secret mines given in a DM."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakediscord import Harness, User, gm_and_two_players

HIDDEN = {"pak75-1": "0101", "pak75-2": "0102", "flak88-1": "0103"}
PLACED = ["flak88-2", "pak88-1", "pak88-2", *(f"infde-{n}" for n in range(1, 10))]
ENTRIES = ["t34a-1", "t34a-2", "t34b-1", "t34b-2", "t34b-3", "t34b-4", "t34c-1", "t34c-2",
           "t34c-3", "t34c-4", "t34c-5", "t34c-6", "kvia-1", "kvia-2", "kvia-3", "kvia-4",
           "kvic-1", "kvic-2", "su152-1", "su152-2"]


@pytest.fixture
async def tanks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[tuple[Harness, User, User, User]]:
    async with gm_and_two_players(tmp_path / "umpire.db", monkeypatch, "tanks1", 7) as seated:
        yield seated


async def test_pakfront_hidden_setup_and_reveals(
        tanks: tuple[Harness, User, User, User]) -> None:
    h, gm, gerd, sasha = tanks
    fake = h.fake
    thread, _ = await h.open_game(gm, "tanks", "pakfront", {"german": gerd, "soviet": sasha})
    gerd_dm = fake.dm_channel(gerd)
    assert any("/tanks hide" in m.content for m in fake.dms_to(gerd))

    refused = await h.slash(gerd, thread, "tanks hide", unit="pak75-1", hex="0101")
    assert refused.ephemeral and "0101" not in refused.text and "pak75" not in refused.text
    assert "pak75-1" in await h.autocomplete(gerd, gerd_dm, "tanks hide", "unit", unit="pak")
    for unit, where in HIDDEN.items():
        placed = await h.slash(gerd, gerd_dm, "tanks hide", unit=unit, hex=where)
        assert "Applied" in placed, placed
    assert any("pak75-1 set up hidden in 0101" in m.content for m in fake.dms_to(gerd))
    for number, unit in enumerate(PLACED, start=4):
        reply = await h.slash(gerd, thread, "tanks place", unit=unit, hex=f"01{number:02d}")
        assert "Applied" in reply, reply
    done = await h.slash(gerd, thread, "tanks done")
    assert "Applied: `done`" in done
    commitment = fake.channel_messages(thread)[-1].content
    assert "commitment" in commitment and "0103" not in commitment

    # The Soviet player sees legal entry moves (nothing about hidden units) and enters.
    assert "0101" in await h.autocomplete(sasha, thread, "tanks move", "to", unit="t34a-1")
    # 8.3: `to` with a `face` typed offers only the hexes reachable ending with that facing
    plain = await h.autocomplete(sasha, thread, "tanks move", "to", unit="t34a-1", to="02")
    faced = await h.autocomplete(sasha, thread, "tanks move", "to", unit="t34a-1", to="02",
                                 face="N")
    assert "0206" in plain and faced and "0206" not in faced, (plain, faced)
    refused = await h.slash(sasha, thread, "tanks move", unit="t34a-1", to="0206", face="N")
    assert refused.ephemeral and "Applied" not in refused, refused
    for index, unit in enumerate(ENTRIES, start=1):
        reply = await h.slash(sasha, thread, "tanks move", unit=unit, steps=f"{index:02d}01")
        assert "Applied" in reply, reply
    assert any("pak75-1 revealed in 0101" in m.content for m in fake.public_messages())
    assert any("pak75-2 revealed in 0102" in m.content for m in fake.public_messages())
    early = await h.slash(sasha, thread, "tanks done")
    assert early.ephemeral and "rule 6.5" in early and "t34a-1" in early
    await h.slash(sasha, thread, "tanks move", unit="t34a-1", steps="2101")
    public_map = await h.slash(sasha, thread, "game map")
    assert "flak88-1" not in public_map.text

    # No hidden unit in any public message (or version, or button) before its reveal.
    revealed: set[str] = set()
    for message in fake.public_messages():
        text = " ".join(message.texts())
        for unit in HIDDEN:
            if f"{unit} revealed" in text:
                revealed.add(unit)
        for unit in set(HIDDEN) - revealed:
            assert unit not in text, (unit, text)
    assert "flak88-1" not in revealed
    for message in fake.dms_to(sasha):
        assert "flak88-1" not in " ".join(message.texts())

    # To the end: the German gives up; the record and every die are checked after it.
    over = await h.slash(gerd, thread, "game resign", confirm=True)
    assert "Applied: `resign`" in over
    assert "german resigns; soviet wins" in fake.channel_messages(thread)[-1].content
    dice = await h.slash(sasha, thread, "game dice")
    assert "every roll verified" in dice.public[0].content
    record = await h.slash(sasha, thread, "game export")
    assert record.original.attachments[0].filename == "umpire-tanks1.jsonl"


async def test_mines_are_given_in_a_dm_and_never_shown(
        tanks: tuple[Harness, User, User, User]) -> None:
    h, gm, gerd, sasha = tanks
    fake = h.fake
    thread, _ = await h.open_game(gm, "tanks", "kursk-salient",
                                  {"german": gerd, "soviet": sasha})
    assert any("/tanks mine" in m.content for m in fake.dms_to(sasha))
    refused = await h.slash(sasha, thread, "tanks mine", hex="1213")
    assert refused.ephemeral and "1213" not in refused.text
    sasha_dm = fake.dm_channel(sasha)
    assert "1214" in await h.autocomplete(sasha, sasha_dm, "tanks mine", "hex", hex="121")
    # (not 1213: the public briefing names it, as a corner of the Soviet set-up area, 25.3)
    mined = ["1214", "1215", "1216", "1217", "1218", "1219"]
    for where in mined:
        placed = await h.slash(sasha, sasha_dm, "tanks mine", hex=where)
        assert f"Applied: `mine {where}`" in placed, placed
    for message in fake.public_messages():
        for where in mined:
            assert where not in " ".join(message.texts()), (where, message.content)
    for message in fake.dms_to(gerd):
        assert not any(where in " ".join(message.texts()) for where in mined)
