"""The scenario's briefing on Discord (issue 23, "the same briefing in Discord"; issue 29,
"the first post shows the board, the briefing, and what each side does first"): right under
the start message in the thread, and in ``/game status``. It comes from the scenario, so it
is public: the 25.2 Kursk salient's goals and special rules, with their rule numbers."""

from __future__ import annotations

from tests.bot import test_discord_setup_guide
from tests.fakediscord import Harness, User

table = test_discord_setup_guide.table  # the fixture: a GM, gerd and sasha on a fake server


async def test_25_2_the_briefing_is_posted_at_the_start_and_in_status(
        table: tuple[Harness, User, User, User]) -> None:
    """25.2: the start is followed in the thread by the scenario's briefing (title, each
    side's goal, the special rules with their numbers), pinging nobody; ``/game status``
    shows the same briefing privately to whoever asks."""
    h, gm, gerd, sasha = table
    thread, started = await h.open_game(gm, "tanks", "kursk-salient",
                                        {"german": gerd, "soviet": sasha})
    briefs = [m for m in h.fake.public_messages()
              if m.channel_id == thread.id and "**Briefing**" in m.content]
    assert len(briefs) == 1, [m.content for m in h.fake.public_messages()]
    post = briefs[0].content
    assert "German:" in post and "Soviet:" in post and "Features:" in post
    assert "25." in post and len(post) <= 2000
    assert briefs[0].pings == []
    assert "**Briefing**" in started  # the same interaction: right under the start
    status = await h.slash(sasha, thread, "game status")
    assert status.ephemeral and "**Briefing**" in status and "German:" in status
    assert all(m.ephemeral for m in status.messages)
