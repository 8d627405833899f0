"""Turning Point: Stalingrad through the fake Discord: the Basic Game's free set-up (the
Russian first), the German's initial Rubble, the opening impulses with moves and an attack
whose casualties the Russian player answers with buttons (only he can), a GM rollback, the
attack again answered by text — and a scan of every public message for private content.

The Kuibyshev Sawmill scenario is not in the rules' ``scenarios()`` yet (only ``basic`` and
``historical``), so this plays the Basic Game. The set-up places every starting unit in
the Area the historical set-up (21.2) gives it, which also fits the colour codes (5.4).
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path

import PIL.Image
import pytest

from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.setup import setup_units
from bot.discord.app import load_renderer
from bot.discord.core import UmpireBot
from bot.service import Actor
from tests.fakediscord import Harness, Message, User, gm_and_two_players
from tests.fakediscord.harness import served

GERMAN_ATTACK = ("attack 32 fresh with g14pz:pzjg4 g29mot:i/15 g29mot:ii/15 g29mot:iii/15 "
                 "g29mot:pz129")


def setup_lines(side: str) -> list[str]:
    """One ``setup`` line per Area: every starting unit where 21.2 puts it."""
    game = StalingradGame()
    board = game.pack_board
    by_area: dict[str, list[str]] = defaultdict(list)
    for uid in setup_units(board, game.setup("basic"), side):
        area = board.units[uid].historical
        assert area is not None
        by_area[area].append(uid)
    return [f"setup {' '.join(units)} in {area}" for area, units in by_area.items()]


@pytest.fixture
async def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[tuple[Harness, User, User, User]]:
    renderer = load_renderer()
    assert renderer is not None, "the render package provides render(view)"
    async with gm_and_two_players(tmp_path / "umpire.db", monkeypatch, "stal1", 5,
                                  renderer) as seated:
        yield seated


def applied(reply: object) -> None:
    assert "Applied" in str(reply), reply


async def test_basic_game_opening_through_discord(
        table: tuple[Harness, User, User, User]) -> None:
    h, gm, gerd, sasha = table
    fake = h.fake
    thread, started = await h.open_game(gm, "stalingrad", "basic",
                                        {"german": gerd, "russian": sasha})
    assert "To act: **russian**" in started

    assert isinstance(h.client, UmpireBot)
    service = served(h)

    def owed() -> list[str]:
        """The option orders of the decision the Russian owes (his view only)."""
        pending = service.view("stal1", Actor.discord(sasha.id), "russian").pending
        assert pending is not None and pending.side == "russian"
        return [option.order for option in pending.options]

    def posts() -> list[Message]:
        return [m for m in fake.channel_messages(thread) if not m.ephemeral]

    def last() -> Message:
        return posts()[-1]

    # ---- set-up: the Russian first (5.4), by command, by /order lines, then done --------
    russian = setup_lines("russian")
    assert len(russian) > 30
    first_units, first_area = russian[0].removeprefix("setup ").split(" in ")
    offered = await h.autocomplete(sasha, thread, "stalingrad setup", "units",
                                   units=first_units[:6])
    assert offered and all(o.startswith(first_units[:6]) for o in offered)
    assert first_area in await h.autocomplete(sasha, thread, "stalingrad setup", "area",
                                              units=first_units.split()[0])
    assert await h.autocomplete(gerd, thread, "stalingrad setup", "units") == []  # not his turn
    for line in russian[:2]:
        units, area = line.removeprefix("setup ").split(" in ")
        applied(await h.slash(sasha, thread, "stalingrad setup", units=units, area=area))
    shown = ", ".join(u.split(":", 1)[-1] for u in first_units.split())  # short names
    assert f"russian sets up {shown}" in posts()[-2].content
    rest = [*russian[2:], "setup done"]
    for start in range(0, len(rest), 12):
        applied(await h.slash(sasha, thread, "order", text="; ".join(rest[start:start + 12])))
    assert "russian has finished setting up" in last().content
    early = await h.slash(sasha, thread, "order", text="setup done")
    assert early.ephemeral and "Not accepted" in early

    # The German sets up through the multi-line box.
    box = await h.slash(gerd, thread, "order")
    german = "\n".join([*setup_lines("german"), "setup done"])
    assert len(german) <= 1800
    done = await h.submit_modal(gerd, thread, box, german)
    assert done.ephemeral and done.text.count("`setup ") == german.count("\n") + 1
    # A batch is one public post, cut at whole lines with a pointer to the log when too
    # long (with the units' short names the German set-up now fits whole).
    assert "more line(s) — see /game log" in last().content or \
        "german has finished setting up" in last().content
    assert "To act: **german**" in last().content  # now the initial Rubble (5.7)
    tail = await h.slash(gerd, thread, "game log", last=1)
    assert "german has finished setting up" in tail

    # ---- the German's standing order (private), then the initial Rubble (5.7) -------------
    count = len(fake.public_messages())
    standing = await h.slash(gerd, thread, "game standing", kind="advantage", policy="never")
    assert standing.ephemeral and "standing advantage never" in standing
    assert len(fake.public_messages()) == count
    # The Russian keeps his Artillery out of the defense (15.3) so the attack below rolls at once.
    await h.slash(sasha, thread, "game standing", kind="artillery", policy="never")
    applied(await h.slash(gerd, thread, "stalingrad rubble"))
    assert "the game begins: German impulse 1 of September 13" in last().content
    assert "initial Rubble dr" in last().content or "Rubble" in last().content

    # ---- impulses: move and end; the Russian passes ---------------------------------------
    movers = await h.autocomplete(gerd, thread, "stalingrad move", "units", units="g14pz:ar")
    assert "g14pz:arko14" in movers
    # issue 29: every legal order is searched, not the first 400 (Area 2's units only)
    assert "g94:i/267" in await h.autocomplete(gerd, thread, "stalingrad move", "units",
                                               units="i/2")
    assert "3" in await h.autocomplete(gerd, thread, "stalingrad move", "to",
                                       units="i/267 ii/267")
    assert "3" in await h.autocomplete(gerd, thread, "stalingrad move", "to", units="g14pz:arko14")
    # issue 29, 3.2: Areas are offered with their printed names, and a name finds its Area
    named = await h.choices(gerd, thread, "stalingrad move", "to", units="g14pz:arko14",
                            to="voro")
    assert named[0] == {"name": "3 Voroponovo Road", "value": "3"}, named
    applied(await h.slash(gerd, thread, "stalingrad move", units="g14pz:arko14", to="3"))
    assert "arko14 enters Voroponovo Road (3)" in last().content  # its short name
    applied(await h.slash(gerd, thread, "stalingrad end"))
    assert "To act: **russian**" in last().content
    applied(await h.slash(sasha, thread, "stalingrad pass"))
    before_attack = (await h.slash(gm, thread, "game status")).text
    seq_before = int(before_attack.split("action ")[1].split()[0])

    # ---- the attack: the GM sets the dice, the Russian owes the casualties ------------
    rolled = await h.slash(gm, thread, "gm roll", values="4 4 3 3", reason="opening test")
    assert rolled.ephemeral
    announced = last().content
    assert "set by the GM" in announced and "4, 4, 3, 3" not in announced
    applied(await h.slash(gerd, thread, "stalingrad attack", units=GERMAN_ATTACK.split(" with ")[1],
                          area="32"))
    prompt = last()
    assert "18:13 — 5 Casualty Points" in prompt.content
    assert f"<@{sasha.id}>" in prompt.content and "waiting for russian" in prompt.content
    assert prompt.attachments and prompt.attachments[0].filename.endswith(".png")
    (choose,) = prompt.custom_ids()
    refused = await h.click(gerd, prompt, choose)
    assert refused.ephemeral and "Only" in refused and "decide" not in refused.text.replace(
        "decision", "")
    dm = next(m for m in fake.dms_to(sasha) if m.custom_ids())
    assert len(dm.custom_ids()) == 3
    labels = [b["label"] for row in dm.components for b in row["components"]]
    assert labels and not any("r35g:" in text or "r:" in text for text in labels), labels
    wrong = await h.click(gerd, dm, dm.custom_ids()[0])
    assert wrong.ephemeral and "Only" in wrong
    assert not any(m.custom_ids() for m in fake.dms_to(gerd))
    chosen, *alternatives = owed()
    assert len(alternatives) == 2
    await h.click(sasha, dm, dm.custom_ids()[0])
    assert "Answered" in dm.content and dm.components == []
    assert "russian pays 5 CP in Yelshanka (32)" in last().content
    # The casualties leave a retreat to choose (8.3551): another decision, same player.
    while "waiting for russian" in last().content:
        follow = [m for m in fake.dms_to(sasha) if m.custom_ids()][-1]
        alternatives += owed()[1:]
        await h.click(sasha, follow, follow.custom_ids()[0])
    assert "To act: **german**" in last().content

    # ---- the GM rolls the attack back, after a preview ------------------------------------
    preview = await h.slash(gm, thread, "gm rollback", to=seq_before,
                            reason="the dice were set for a test")
    assert preview.ephemeral and "Preview" in preview and "attack 32" in preview
    confirm = next(i for i in preview.original.custom_ids() if i.startswith("umpire:rb:"))
    stranger = await h.click(sasha, preview.original, confirm)
    assert stranger.ephemeral and "Only the GM" in stranger
    await h.click(gm, preview.original, confirm)
    told = "\n".join(m.content for m in posts()[-2:])  # the notice, then what was undone
    # issue 29: in game terms (the date and phase), never an action number; the posts of
    # the actions undone are edited to say so
    assert "rolled the game back to Sep " in told and "phase (" in told, told
    assert f"action {seq_before}" not in told
    paid = [m for m in fake.public_messages() if m.history and any(
        "russian pays 5 CP in Yelshanka (32)" in old for old, _, _ in m.history)]
    assert paid and all(m.content.startswith("*(undone by the GM)*") and "~~" in m.content
                        and m.components == [] for m in paid)
    assert "the dice were set for a test" in told and "Undone by the rollback" in told

    # The attack again, on fresh dice from the new branch; answered by text this time.
    await h.slash(gm, thread, "gm roll", values="5 4 3 3", reason="second try")
    applied(await h.slash(gerd, thread, "stalingrad attack", units=GERMAN_ATTACK.split(" with ")[1],
                          area="32"))
    assert "19:13 — 6 Casualty Points" in last().content
    offered = await h.choices(sasha, thread, "decide", "answer")
    assert len(offered) == 2 and all(c["name"].startswith("decide casualties") for c in offered)
    assert all(len(c["value"]) <= 20 for c in offered)  # short stable keys, never the order
    # issue 29: the options as players type them (short unit names), not the stored ids
    assert not any("r35g:" in c["name"] or "r:56tb" in c["name"] for c in offered), offered
    options = [str(c["value"]) for c in offered]
    assert await h.autocomplete(gerd, thread, "decide", "answer") == []
    not_his = await h.slash(gerd, thread, "decide", answer=options[0])
    assert not_his.ephemeral and "waiting for russian" in not_his
    applied(await h.slash(sasha, thread, "decide", answer=options[0]))
    while "waiting for russian" in last().content:  # the retreat, by text too
        retreat = await h.choices(sasha, thread, "decide", "answer")
        alternatives += [c["name"].split(" — ")[0] for c in retreat[1:]]
        applied(await h.slash(sasha, thread, "decide", answer=retreat[0]["value"]))
    alternatives += [c["name"].split(" — ")[0] for c in offered[1:]]
    assert "To act: **german**" in last().content
    applied(await h.slash(gerd, thread, "stalingrad end"))
    applied(await h.slash(sasha, thread, "stalingrad pass"))
    log = await h.slash(gerd, thread, "game log", last=8)
    assert "rollback" in log and "(secret)" in log  # the Russian's answer is his to read

    # ---- no private content in any public message ---------------------------------------
    public = fake.public_messages()
    pictures = [a for m in public for a in m.all_attachments() if a.filename.endswith(".png")]
    assert len(pictures) >= 10
    from render.stalingrad import CROP_SIZE
    start, *pictures = pictures  # the start shows the whole board (issue 29)
    assert PIL.Image.open(io.BytesIO(start.data)).size[1] > 2 * CROP_SIZE[1]
    for picture in pictures:
        PIL.Image.open(io.BytesIO(picture.data)).verify()
        # posts zoom on the last action (readable on a phone) ...
        assert PIL.Image.open(io.BytesIO(picture.data)).size == CROP_SIZE
    # ... and the whole map comes on request
    whole = await h.slash(gerd, thread, "game map", full=True)
    (full_map,) = [a for m in whole.messages for a in m.all_attachments()
                   if a.filename.endswith(".png")]
    assert PIL.Image.open(io.BytesIO(full_map.data)).size[1] > 2 * CROP_SIZE[1]
    assert alternatives and chosen
    for message in public:
        for text in message.texts():
            for option in alternatives:  # options not taken: the owing side's only
                assert option not in text, (option, text)
            assert "standing" not in text and "advantage = never" not in text, text
            assert "4, 4, 3, 3" not in text and "5, 4, 3, 3" not in text, text
    for message in fake.dms_to(gerd):
        assert "decide casualties" not in " ".join(message.texts())
    # Issue 29: DMs carry only what the side may know beyond the thread, or must decide:
    # no board as text, no copy of the public map, no "Choose below" without buttons.
    for player in (gerd, sasha):
        for message in fake.dms_to(player):
            if message.ephemeral:
                continue
            assert "```" not in message.content, message.content
            assert not message.attachments, message.content
            if "Choose below" in message.content:
                assert message.custom_ids() or message.history, message.content
