"""Scripted sessions through the fake Discord, as a group lives them (issue 29's "done
when"): each counts thread posts, pings and DMs per action and checks that every change
of who acts is posted and pings exactly that side, nobody is pinged for their own action,
no map repeats the one before, and DMs carry only private content
(:class:`tests.fakediscord.session.Session`).

``UMPIRE_SESSION_DOC=path`` writes the transcripts there (docs/discord-session.md is
made so: ``UMPIRE_SESSION_DOC=docs/discord-session.md pytest tests/bot/test_discord_session.py
-n 0``).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import PIL.Image
import PIL.PngImagePlugin
import pytest

from adjudicator.kernel.views import View
from bot.discord.app import load_renderer
from bot.discord.core import UmpireBot
from tests.bot.test_discord_duel import DUEL
from tests.bot.test_discord_stalingrad import GERMAN_ATTACK, setup_lines
from tests.fakediscord import FakeDiscord, Harness, User, gm_and_two_players, run_umpire
from tests.fakediscord.harness import served
from tests.fakediscord.session import Session

TRANSCRIPTS: dict[str, str] = {}


def _keep(title: str, session: Session) -> None:
    TRANSCRIPTS[title] = session.markdown(title)
    target = os.environ.get("UMPIRE_SESSION_DOC")
    if target:
        head = ("# Discord sessions, as a group sees them\n\n"
                "Made by `tests/bot/test_discord_session.py` through the fake Discord "
                "(`UMPIRE_SESSION_DOC=docs/discord-session.md`). *(only X sees)*: the "
                "acting player's private answer; *(thread)*: the game's thread, with "
                "[map] when the post carries a picture and whom it pinged; *(DM to "
                "side)*: a direct message.\n\n")
        Path(target).write_text(head + "\n".join(TRANSCRIPTS[t] for t in sorted(TRANSCRIPTS)))


def board_png(view: View) -> bytes:
    """A stand-in picture of a Duel view: a PNG that holds its units (the board)."""
    info = PIL.PngImagePlugin.PngInfo()
    info.add_text("units", repr(getattr(view, "units", None)))
    out = io.BytesIO()
    PIL.Image.new("RGB", (8, 8), "white").save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def _service(h: Harness) -> Any:
    assert isinstance(h.client, UmpireBot)
    return served(h)


async def test_29_a_duel_session_counts_posts_pings_and_dms(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 with Duel: set-up, a secret trap (D4), moves, passes, GM dice, an attack
    and its decision answered with the DM button, to the end."""
    fake = FakeDiscord()
    gm, ann, bob = fake.add_user("gm", roles=("Umpire GM",)), fake.add_user("ann"), \
        fake.add_user("bob")
    fake.permit("gm", "Umpire GM")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch, renderer=board_png,
                          seed_source=lambda n: bytes(range(n)), extra_games=[DUEL],
                          game_ids=["duel1"]) as h:
        await h.slash(gm, fake.general, "game new", game=DUEL)
        (thread,) = fake.threads()
        s = Session(h, thread, {"red": ann, "blue": bob},
                    lambda: _service(h).info("duel1").to_act)

        async def slash(user: User, did: str, path: str, where: Any = thread,
                        **options: Any) -> None:
            await s.act(user, did, lambda: h.slash(user, where, path, **options))

        await slash(ann, "/game join side:red", "game join", side="red")
        await slash(bob, "/game join side:blue", "game join", side="blue")
        await slash(gm, "/game start", "game start")
        await slash(ann, "/duel trap cell:3 (in her DM)", "duel trap", fake.dm_channel(ann),
                    cell="3")
        await slash(ann, "/duel move unit:r2 cell:3", "duel move", unit="r2", cell="3")
        await slash(bob, "/duel pass", "duel pass")
        await slash(gm, "/gm roll values:6 6", "gm roll", values="6 6", reason="a sure hit")
        await slash(ann, "/duel attack unit:r2 cell:4", "duel attack", unit="r2", cell="4")
        prompt = next(m for m in reversed(fake.dms_to(bob)) if m.custom_ids())
        await s.act(bob, "the DM button (its first option)",
                    lambda: h.click(bob, prompt, prompt.custom_ids()[0]))
        await slash(bob, "/duel move unit:b1 cell:4", "duel move", unit="b1", cell="4")
        await slash(ann, "/duel pass", "duel pass")
        s.check()
        actions, posts, pings, dms = s.counts()
        assert actions == 11 and pings <= posts and dms <= 2, s.counts()
        _keep("Duel (the kernel's contract game)", s)


async def test_29_a_stalingrad_session_counts_posts_pings_and_dms(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 with Turning Point: Stalingrad's Basic Game: set-up (5.4), the initial
    Rubble (5.7), a move and an end (7.1, 8.2), the Russian's pass, an attack on GM dice
    with its casualties answered by the Russian (8.3, 8.35)."""
    renderer = load_renderer()
    async with gm_and_two_players(tmp_path / "umpire.db", monkeypatch, "stal1", 5,
                                  renderer) as (h, gm, gerd, sasha):
        h.timeout = 30.0
        fake = h.fake
        await h.slash(gm, fake.general, "game new", game="stalingrad", scenario="basic")
        (thread,) = fake.threads()
        s = Session(h, thread, {"german": gerd, "russian": sasha},
                    lambda: _service(h).info("stal1").to_act)

        async def slash(user: User, did: str, path: str, **options: Any) -> None:
            await s.act(user, did, lambda: h.slash(user, thread, path, **options))

        await slash(gerd, "/game join side:german", "game join", side="german")
        await slash(sasha, "/game join side:russian", "game join", side="russian")
        await slash(gm, "/game start", "game start")
        # the board, and what the Russian does first (5.4); then the scenario's briefing
        start, brief = s.steps[-1].posts
        assert "**Briefing**" in brief.content and "Russian:" in brief.content, brief
        assert start.attachments and "first: `/stalingrad setup`" in start.content, start
        for side, user in (("russian", sasha), ("german", gerd)):
            lines = [*setup_lines(side), "setup done"]
            await slash(user, f"/order with its {len(lines) - 1} set-up lines (a batch)",
                        "order", text="; ".join(lines))
        await slash(sasha, "/game standing kind:artillery policy:never", "game standing",
                    kind="artillery", policy="never")
        await slash(gerd, "/stalingrad rubble", "stalingrad rubble")
        await slash(gerd, "/stalingrad move units:g14pz:arko14 to:3", "stalingrad move",
                    units="g14pz:arko14", to="3")
        await slash(gerd, "/stalingrad end", "stalingrad end")
        await slash(sasha, "/stalingrad pass", "stalingrad pass")
        await slash(gm, "/gm roll values:4 4 3 3", "gm roll", values="4 4 3 3",
                    reason="the session's attack")
        units = GERMAN_ATTACK.split(" with ")[1]
        await slash(gerd, f"/stalingrad attack area:32 units:{units}", "stalingrad attack",
                    units=units, area="32")
        while _service(h).info("stal1").to_act == "russian":
            prompt = [m for m in fake.dms_to(sasha) if m.custom_ids()][-1]
            await s.act(sasha, "the DM button (first option)",
                        lambda prompt=prompt: h.click(sasha, prompt, prompt.custom_ids()[0]))
        s.check()
        actions, posts, pings, dms = s.counts()
        assert pings <= actions and posts <= actions + 2 and dms <= actions, s.counts()
        _keep("Turning Point: Stalingrad (Basic Game, the opening)", s)
