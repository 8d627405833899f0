"""Through the fake Discord: a stored action's board is drawn while the actor's
acknowledgement is on its way (issue 26: the follow-up waited for the acknowledgement's
round trip, then for the drawing), and only where the game gets a picture after every
order (``pictures``; issue 29 for the setting).

Duel (tests/kernel/duel.py): red places its trap in secret (D4), then red and blue
alternate (D1).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from adjudicator.kernel.events import PUBLIC
from adjudicator.kernel.views import View
from tests.bot import test_discord_duel
from tests.bot.test_discord_duel import DUEL
from tests.bot.test_discord_session import board_png
from tests.fakediscord import FakeDiscord, Message
from tests.fakediscord.server import API
from tests.waiting import GENEROUS


class Drawing:
    """A renderer that tells when it is called and notes whose view each picture shows."""

    def __init__(self) -> None:
        self.called = threading.Event()
        self.viewers: list[str] = []

    @property
    def count(self) -> int:
        """Pictures of the public view (the thread's)."""
        return self.viewers.count(PUBLIC)

    def __call__(self, view: View, pack: Path | None = None, /, **options: bool) -> bytes:
        self.viewers.append(view.viewer)
        self.called.set()
        return board_png(view)


def _posts(fake: FakeDiscord, thread: object, since: int = 0) -> list[Message]:
    return [m for m in fake.channel_messages(thread)[since:]  # type: ignore[arg-type]
            if m.source == "channel"]


async def test_26_the_board_is_drawn_while_the_acknowledgement_is_on_its_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord holds the actor's acknowledgement (the first follow-up of the deferred
    ``/duel move``) unanswered: the move's board is drawn meanwhile, and once Discord
    answers, the thread's post carries that one picture."""
    drawing = Drawing()
    async with test_discord_duel.drawn_table(tmp_path, monkeypatch, drawing) as t:
        h, fake, ann = t.h, t.fake, t.ann
        thread = await test_discord_duel.open_game(t)
        await h.slash(ann, fake.dm_channel(ann), "duel trap", cell="2")
        drawing.called.clear()
        drawn_before = drawing.count
        before = len(fake.channel_messages(thread))
        held = fake.hold("POST", f"^{API}/webhooks/")
        moving = asyncio.create_task(h.slash(ann, thread, "duel move", unit="r2", cell="3"))
        await asyncio.wait_for(held.reached.wait(), GENEROUS)
        drawn = await asyncio.to_thread(drawing.called.wait, GENEROUS)
        assert drawn, "the board was not drawn while the acknowledgement was held"
        assert _posts(fake, thread, before) == []  # the post waits for the acknowledgement
        held.release()
        acknowledged = await moving
        assert acknowledged.ephemeral and "Applied" in acknowledged, acknowledged
        moved = _posts(fake, thread, before)
    assert [bool(m.attachments) for m in moved] == [True], [m.content for m in moved]
    assert drawing.count == drawn_before + 1  # drawn once: the post took the early picture


async def test_26_29_with_pictures_on_a_change_of_turn_none_is_drawn_ahead(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``pictures: turn`` most actions get no picture: none is drawn ahead for them.
    Red's move gives the turn to blue (D1): its post carries the board; blue's pass gives
    it back with the board unchanged: the post has no picture, and no public board was
    drawn for it (with ``pictures: order`` it would have been, while the acknowledgement
    went out)."""
    drawing = Drawing()
    async with test_discord_duel.drawn_table(tmp_path, monkeypatch, drawing) as t:
        h, fake, gm, ann, bob = t.h, t.fake, t.gm, t.ann, t.bob
        await h.slash(gm, fake.general, "game new", game=DUEL, pictures="turn")
        (thread,) = fake.threads()
        await h.slash(ann, thread, "game join", side="red")
        await h.slash(bob, thread, "game join", side="blue")
        await h.slash(gm, thread, "game start")
        await h.slash(ann, fake.dm_channel(ann), "duel trap", cell="2")
        before = len(fake.channel_messages(thread))
        moved = await h.slash(ann, thread, "duel move", unit="r2", cell="3")
        assert "Applied" in moved, moved
        assert [bool(m.attachments) for m in _posts(fake, thread, before)] == [True]
        drawn = drawing.count
        before = len(fake.channel_messages(thread))
        passed = await h.slash(bob, thread, "duel pass")
        assert "Applied" in passed, passed
        posted = _posts(fake, thread, before)
    assert posted and not any(m.attachments for m in posted), [m.content for m in posted]
    assert drawing.count == drawn, drawing.viewers
