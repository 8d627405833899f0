"""One command catalogue (issue 22, item 3): every non-order command is declared once in
:mod:`bot.commands`, and the console, email and Discord offer exactly the commands it gives
them, described alike; asked the same things, the frontends answer alike (``help map``,
the scenario ``status`` names, the start told to every seat)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot import commands as catalogue
from bot.console import COMMANDS as CONSOLE_COMMANDS
from bot.console import HELP as CONSOLE_HELP
from bot.console import Session as ConsoleSession
from bot.discord import app as discord_app
from bot.discord.core import BotConfig
from bot.mail.commands import AS_ORDERS, META
from bot.mail.desk import COMMANDS as MAIL_COMMANDS
from bot.service import GameService
from bot.store import Store
from tests.fakediscord import FakeDiscord, run_umpire
from tests.fakediscord.harness import served
from tests.mail.support import desk, inbound, secret_in
from tests.mail.test_desk import BLUE, GM, RED, handle, one


def payloads(tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every Discord command Umpire syncs, by scope, as Discord receives it."""
    store = Store(tmp_path / "check.db")
    try:
        bot = discord_app.create_bot(GameService(store), BotConfig(guild_id=42))
        return discord_app.command_payloads(bot)
    finally:
        store.close()


def _discord_commands(tmp_path: Path) -> dict[str, str]:
    """Every Discord command path (``game status``) of Umpire's own groups and top-level
    commands, with its description (the games' order groups are their specs')."""
    scopes = payloads(tmp_path)
    games = {"stalingrad", "tanks"}
    found: dict[str, str] = {}
    for commands in scopes.values():
        for command in commands:
            if command["name"] in games or command.get("type", 1) != 1:
                continue
            subs = [o for o in command.get("options", []) if o["type"] == 1]
            if command["name"] in ("game", "gm"):
                found.update({f"{command['name']} {o['name']}": o["description"]
                              for o in subs})
            else:
                found[command["name"]] = command["description"]
    return found


def test_every_frontend_offers_exactly_the_catalogues_commands(tmp_path: Path) -> None:
    """The console's command table and handlers, the words a mail reads as commands and
    its handlers, and Discord's /game, /gm and top-level commands are the catalogue's."""
    assert set(CONSOLE_COMMANDS) == catalogue.names("console")
    assert all(callable(getattr(ConsoleSession, f"cmd_{name}", None))
               for name in CONSOLE_COMMANDS if name != "quit")  # quit ends the loop
    assert set(MAIL_COMMANDS) == catalogue.names("email", aliases=True)
    assert catalogue.names("email", aliases=True) | AS_ORDERS == META
    discord = _discord_commands(tmp_path)
    assert set(discord) == catalogue.names("discord")
    for name, description in discord.items():
        assert description == catalogue.describe("discord", name)


def test_help_names_a_command_alike_in_every_frontend(tmp_path: Path) -> None:
    """``help map`` was "unknown verb 'map'" at the console while ``help`` listed it: the
    console and email answer with the catalogue's one text, and both list every command
    they offer in ``help``."""
    expected = catalogue.command("map")
    assert expected is not None
    for command in catalogue.of("console"):
        assert command.summary in CONSOLE_HELP
    office = desk(tmp_path / "u.db", games={"stalingrad": "stalingrad"})
    reply = one(handle(office, inbound(RED, "help map")))
    assert expected.help() in reply.body
    listed = one(handle(office, inbound(RED, "help"))).body
    for command in catalogue.of("email"):
        assert command.summary in listed, command.name


def test_status_names_the_scenario_create_named_and_start_tells_every_seat(
        tmp_path: Path) -> None:
    """By email ``create stalingrad`` named the default scenario while ``status`` said
    "default scenario", and only the GM was told the game started: now both name it, and
    every seat gets the start notice (with whose turn it is and the dice commitment)."""
    office = desk(tmp_path / "u.db", games={"stalingrad": "stalingrad"})
    created = one(handle(office, inbound(GM, "create stalingrad")))
    game_id = str(created.game_id)
    info = office.service.info(game_id)
    assert info.scenario is None and info.scenario_name  # the default, named
    assert f"scenario {info.scenario_name}" in created.body
    secrets: dict[str, Any] = {GM: secret_in(created)}
    for who, side in ((RED, "german"), (BLUE, "russian")):
        secrets[who] = secret_in(one(handle(office, inbound(who, f"join {game_id} {side}"))))
    status = one(handle(office, inbound(RED, "status", subject=f"[umpire {game_id}]")))
    assert f"scenario {info.scenario_name}" in status.body
    assert "default scenario" not in status.body
    started = handle(office, inbound(GM, f"password {secrets[GM]}\nstart",
                                     subject=f"[umpire {game_id}]"))
    told = {mail.to: mail for mail in started[1:]}
    assert set(told) == {RED, BLUE}
    info = office.service.info(game_id)
    for mail in told.values():
        assert "has started" in mail.body and f"To act: {info.to_act}" in mail.body
        assert info.commitment in mail.body
        assert not any(secret in mail.body for secret in secrets.values())


def test_29_game_comes_first_among_the_optional_options(tmp_path: Path) -> None:
    """Issue 29: with two games a DM command needs ``game:``; it used to come last, after
    every optional slot. Now it is the first optional option of every order subcommand
    (Discord wants the required ones first) and of ``/order``; left empty, it defaults to
    the game waiting for the user (tests/bot/test_discord_turns.py)."""
    scopes = payloads(tmp_path)
    checked = 0
    for commands in scopes.values():
        for command in commands:
            subs = [command] if command["name"] == "order" else [
                leaf for option in command.get("options", []) if command["name"] in (
                    "stalingrad", "tanks")
                for leaf in ([option] if option["type"] == 1 else option.get("options", []))]
            for sub in subs:
                options = sub.get("options", [])
                optional = [o["name"] for o in options if not o.get("required")]
                assert optional[:1] == ["game"], (command["name"], sub["name"], optional)
                checked += 1
    assert checked > 20


async def test_discord_answers_help_and_status_as_the_catalogue_and_email_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same questions on Discord: ``/help topic:map`` is the catalogue's text (with the
    command's Discord name), and ``/game status`` names the default scenario a game was
    created without, as email's ``create`` and ``status`` do."""
    fake = FakeDiscord()
    gm, ann = fake.add_user("gm", admin=True), fake.add_user("ann")
    async with run_umpire(fake, tmp_path / "umpire.db", monkeypatch,
                          game_ids=["cat1"]) as h:
        expected = catalogue.command("map")
        assert expected is not None
        helped = await h.slash(ann, fake.general, "help", topic="map")
        assert helped.ephemeral and expected.help() in helped and "`/game map`" in helped
        await h.slash(gm, fake.general, "game new", game="stalingrad")
        (thread,) = fake.threads()
        info = served(h).info("cat1")
        assert info.scenario is None and info.scenario_name
        status = await h.slash(ann, thread, "game status")
        assert f"scenario {info.scenario_name}" in status and "default" not in status


def test_legal_with_a_filter_answers_alike_at_the_console_and_by_mail(tmp_path: Path) -> None:
    """``legal WORDS`` (8.1-8.3 orders, filtered by unit, place and verb) lists the same
    orders at the console and by mail for the same seat in the same position: one listing
    (:mod:`bot.listing`) read by both."""
    import io

    from rich.console import Console

    from bot.console import LOCAL, FunctionIO, LocalGame
    from bot.mail.desk import Desk
    from bot.seat_secrets import new_secret
    from tests.mail.support import config

    db = tmp_path / "umpire.db"
    service = GameService(Store(db), seed_source=lambda n: b"\x05" * n)
    info = service.create_game(LOCAL, "stalingrad", "historical", None,
                               bindings={"console": True})
    secret = new_secret()
    for side in ("german", "russian"):
        service.seat(info.id, LOCAL, side, LOCAL, secret=secret)
    service.start(info.id, LOCAL)
    local = LocalGame(service, info.id)
    filters = ["i/103", "orlovka", "move 14", "attack"]
    typed = iter(["rubble", *(f"legal {words} all" for words in filters), "quit"])
    out = io.StringIO()
    ConsoleSession(service, local, FunctionIO(lambda _p: next(typed), lambda _p: ""),
                   Console(file=out, width=400)).run()
    office = Desk(service, config(), draw=lambda view, pack: b"PNG")
    address = LOCAL.email
    assert address is not None
    console_text = out.getvalue()
    for words in filters:
        mailed = one(handle(office, inbound(address, f"password {secret}\nlegal {words} all",
                                            subject=f"[umpire {local.game_id}]")))
        title = mailed.body.split(f"{'german'} may give: ", 1)[1].splitlines()[0]
        assert f"matching '{words}'" in title and title in console_text, (words, title)
        block = mailed.body.split(title, 1)[1]
        orders = [line.strip() for line in block.splitlines() if line.startswith("    ")]
        assert orders, (words, mailed.body)
        shown = console_text.split(title, 1)[1]
        for order in orders:  # the same orders, grouped and ordered alike
            assert order in shown, (words, order)
            shown = shown.split(order, 1)[1]
