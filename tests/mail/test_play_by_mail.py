"""Whole games by mail against dovecot and an SMTP server on loopback: Stalin's Tanks with a
hidden set-up played to its result by two players and a GM (and an observer), a Turning
Point: Stalingrad opening whose casualties decision is answered by replying to Umpire's
mail — and a scan of every mail sent for anything its recipient may not read."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import PIL.Image
import pytest

from tests.bot.test_discord_stalingrad import GERMAN_ATTACK, setup_lines
from tests.bot.test_discord_tanks import ENTRIES, HIDDEN, PLACED
from tests.mail.conftest import gateway_config
from tests.mail.servers import Dovecot, LocalCA, Received, SmtpSink
from tests.mail.table import Player, Table, greedy_orders

pytestmark = pytest.mark.usefixtures("passwords")

GAMES = {"tanks": "tanks", "stalingrad": "stalingrad"}


@pytest.fixture
def table(dovecot: Dovecot, mailbox: str, sink: SmtpSink, ca: LocalCA,
          tmp_path: Path) -> Table:
    # A whole game is played in seconds here: up to 100 mails a player, more than the
    # default 60 an hour a real player is allowed before the flood limit drops mail.
    config = gateway_config(dovecot, mailbox, sink, ca, tmp_path, limits={"per_hour": 1000})
    return Table(dovecot, mailbox, sink, config, games=GAMES)


def seat_everyone(table: Table, game: str, scenario: str, sides: tuple[str, str]
                  ) -> tuple[Player, Player, Player, str]:
    gm, first, second = (table.player(a) for a in ("gm@club.test", "gerd@club.test",
                                                   "sasha@club.test"))
    created = table.reply_to(gm, table.send(gm, f"create {game} {scenario}"))
    gm.secret = secret_in_text(created.text)
    game_id = created.header("X-Umpire-Game")
    assert f"[umpire {game_id}]" in created.subject
    for player, side in ((first, sides[0]), (second, sides[1])):
        player.game_id = game_id
        joined = table.reply_to(player, table.send(player, f"join {game_id} {side}"))
        player.secret = secret_in_text(joined.text)
    gm.game_id = game_id
    started = table.reply_to(gm, table.send(gm, "start 48h"))
    assert "started" in started.text, started.text
    return gm, first, second, game_id


def secret_in_text(text: str) -> str:
    found = re.search(r"secret: ([a-z0-9-]{14})", text)
    assert found, text
    return found.group(1)


@pytest.mark.parametrize("last_turn", [
    pytest.param(1, id="soviet-resigns-after-entering"),
    pytest.param(None, id="to-the-end", marks=pytest.mark.soak),
])
def test_stalins_tanks_hidden_setup_by_mail_to_a_result(table: Table,
                                                        last_turn: int | None) -> None:
    gm, gerd, sasha, game_id = seat_everyone(table, "tanks", "pakfront", ("german", "soviet"))
    observer = table.player("kibitzer@club.test")
    observer.game_id = game_id
    watched = table.reply_to(observer, table.send(observer, "observe"))
    assert "now observe" in watched.text and watched.pngs

    # The hidden set-up, by private mail; then the open placements.
    hidden = [f"hide {unit} {where}" for unit, where in HIDDEN.items()]
    placed = [f"place {unit} 01{n:02d}" for n, unit in enumerate(PLACED, start=4)]
    reply = table.reply_to(gerd, table.send(gerd, "\n".join([*hidden, *placed, "done"])))
    assert reply.text.count("applied:") == len(hidden) + len(placed) + 1, reply.text
    assert "pak75-1 set up hidden in 0101" in reply.text
    assert reply.pngs and reply.header("X-Umpire-Audience") == "german"
    told = table.mails_to(sasha)[-1]
    assert "pak75-1" not in told.text and "To act: soviet" in told.text

    # The Soviet enters, then both sides play on (by mail) to the end of the scenario.
    entries = [f"move {unit} {n:02d}01" for n, unit in enumerate(ENTRIES, start=1)]
    reply = table.reply_to(sasha, table.send(sasha, "\n".join(entries)))
    assert "applied:" in reply.text
    rng = random.Random(3)
    players = {"german": gerd, "soviet": sasha}
    for _ in range(200):
        info = table.service.info(game_id)
        if info.status == "finished":
            break
        if last_turn is not None and table.state(game_id).turn >= last_turn:
            resigned = table.reply_to(sasha, table.send(sasha, "resign"))
            assert "soviet resigns; german wins" in resigned.text
            continue
        side = str(info.to_act)
        lines = greedy_orders(table.rules(game_id), table.state(game_id), side, rng)
        assert lines, (side, table.service.legal_orders(game_id, _actor(players[side]), side))
        table.reply_to(players[side], table.send(players[side], "\n".join(lines)))
    info = table.service.info(game_id)
    assert info.status == "finished" and info.result
    for player in (gm, gerd, sasha, observer):
        assert f"Game over: {info.result}" in table.mails_to(player)[-1].text

    scan(table, {gm.address: "gm", gerd.address: "german", sasha.address: "soviet",
                 observer.address: "public"},
         {p.address: p.secret for p in (gm, gerd, sasha)})
    # No hidden unit reaches the Soviet or the observer before it is revealed.
    for player in (sasha, observer):
        revealed: set[str] = set()
        for mail in table.mails_to(player):
            for unit in HIDDEN:
                if f"{unit} revealed" in mail.text:
                    revealed.add(unit)
            for unit in set(HIDDEN) - revealed:
                assert unit not in mail.text, (player.address, unit, mail.text)
                assert f"{unit} {HIDDEN[unit]}" not in mail.text


def test_stalingrad_opening_with_a_decision_answered_by_mail(table: Table) -> None:
    gm, gerd, sasha, _game_id = seat_everyone(table, "stalingrad", "basic",
                                             ("german", "russian"))
    reply = table.reply_to(sasha, table.send(sasha, "\n".join([*setup_lines("russian"),
                                                               "setup done",
                                                               # no Artillery question (15.3)
                                                               "standing artillery never"])))
    assert "russian has finished setting up" in reply.text, reply.text[-2000:]
    reply = table.reply_to(gerd, table.send(gerd, "\n".join([*setup_lines("german"),
                                                             "setup done",
                                                             "standing advantage never",
                                                             "rubble"])))
    assert "the game begins" in reply.text, reply.text[-1500:]
    table.send(gerd, "move g14pz:arko14 to 3\nend")
    table.send(sasha, "pass")
    forced = table.reply_to(gm, table.send(gm, "override force-dice 4 4 3 3 because the "
                                           "opening test"))
    assert "applied: override" in forced.text
    table.send(gerd, GERMAN_ATTACK)

    # The Russian is told by mail; he answers by replying, his answer above the quote.
    notice = table.mails_to(sasha)[-1]
    assert "russian decides" in notice.text and "1. decide casualties" in notice.text
    options = re.findall(r"^\s+\d+\. (decide .+?)(?:\s{3}.*)?$", notice.text, re.M)
    assert len(options) == 3, notice.text
    assert not any(option in table.mails_to(gerd)[-1].text for option in options)
    quoted = "\n".join("> " + line for line in notice.text.splitlines())
    answered = table.reply_to(sasha, table.send(
        sasha, f"decide 1\n\nOn Tue, Umpire wrote:\n{quoted}",
        subject="Re: " + notice.subject,
        headers={"In-Reply-To": notice.header("Message-ID"),
                 "References": notice.header("Message-ID")}))
    assert "applied: decide 1" in answered.text
    assert "russian pays 5 CP in Yelshanka (32)" in answered.text
    while "russian decides" in table.mails_to(sasha)[-1].text:  # the retreat decision
        table.send(sasha, "decide 1")
    assert "To act: german" in table.mails_to(gerd)[-1].text
    for mail in table.sink.received:
        for png in mail.pngs:
            PIL.Image.open(io.BytesIO(png)).verify()
    scan(table, {gm.address: "gm", gerd.address: "german", sasha.address: "russian"},
         {p.address: p.secret for p in (gm, gerd, sasha)})
    for mail in table.mails_to(gerd):  # the options the Russian did not take are his
        for option in options[1:]:
            assert option not in mail.text
    for mail in table.mails_to(sasha):  # the German's standing order is his
        assert "advantage never" not in mail.text and "4, 4, 3, 3" not in mail.text


def scan(table: Table, audiences: dict[str, str], secrets: dict[str, str]) -> None:
    """Every mail Umpire sent: to one address only; seat secrets only to their owner;
    labelled with its true audience (issue 24): a mail that hands out a seat's secret is
    ``private`` (its recipient alone), any other one names an audience its recipient has;
    no GM-only or other side's event line."""
    own = {"gm": set(audiences.values()) | {"public", "private"}}
    for mail in table.sink.received:
        assert len(mail.to) == 1, mail.to
        (to,) = mail.to
        assert mail.header("Auto-Submitted") in ("auto-replied", "auto-generated")
        assert mail.header("X-Loop") == table.config.address
        label = mail.header("X-Umpire-Audience")
        reader = audiences.get(to, "public")
        assert label in own.get(reader, {reader, "public", "private"}), (to, label)
        if "secret:" in mail.text:
            assert label == "private", (to, label, mail.subject)
        for owner, secret in secrets.items():
            if owner != to:
                assert secret not in mail.text, f"{owner}'s seat secret mailed to {to}"


def _actor(player: Player) -> object:
    from bot.service import Actor

    return Actor.mail(player.address)


def test_every_mail_is_threaded_per_game(table: Table) -> None:
    """Issue 24: each recipient's mails of a game are one thread — one subject (Re: after
    the first), the first mail the root, each later one In-Reply-To the one before it (or
    the player's mail it answers) and References the root and what it answers."""
    *players, game_id = seat_everyone(table, "tanks", "pakfront", ("german", "soviet"))
    for player in players:
        table.send(player, "status")  # a reply in the thread its seat began
    mails: list[Received] = [m for m in table.sink.received if m.header("X-Umpire-Game")]
    by_address: dict[str, list[Received]] = {}
    for mail in mails:
        by_address.setdefault(mail.to[0], []).append(mail)
    assert len(by_address) == 3
    for _address, thread in by_address.items():
        root, *later = thread
        subject = f"[umpire {game_id}] Stalin's Tanks"
        assert root.subject == subject and root.header("Thread-Topic") == subject
        root_id = root.header("Message-ID")
        assert root_id.startswith(f"<game.{game_id}.")
        assert later, "a seat hears more than once"
        before = root_id
        for mail in later:
            assert mail.subject == "Re: " + subject, mail.subject
            references = mail.header("References").split()
            assert references[0] == root_id and before in references
            parent = mail.header("In-Reply-To")
            assert parent == before or parent.endswith("@player.test>"), parent
            assert parent in references
            assert mail.header("Message-ID") not in (root_id, before)
            before = mail.header("Message-ID")
