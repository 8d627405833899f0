"""``umpire bench discord`` runs the real bot against the fake Discord under a burst and
ends with its figures and their targets (no timing is asserted)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli import app


def test_bench_discord_bursts_through_the_fake_and_ends_with_its_figures() -> None:
    result = CliRunner().invoke(app, ["bench", "discord", "--actions", "20"])
    assert result.exit_code == 0, result.output
    assert "2 games opened, started and seated through the fake Discord" in result.output
    assert "20 interactions in bursts" in result.output
    lines = result.output.strip().splitlines()
    figures = [line for line in lines if line.startswith("FIGURE ")]
    assert figures and lines[-len(figures):] == figures
    for name, target in (("discord first response p99", "<= 1 s"),
                         ("discord follow-up / (pipeline p95 x queue place) p95", "<= 1.5x"),
                         ("discord event loop lag p99", "<= 50 ms")):
        assert any(f.startswith(f"FIGURE {name}: ") and f"(target {target})" in f
                   for f in figures), name
    # where in the bursts the quotient is missed: from the first place to the last
    rows = re.findall(r"^    place +(\d+) +[\d.]+ ms +[\d.]+x  \d+ of (\d+)$", result.output,
                      re.MULTILINE)
    assert rows and rows[0] == ("1", "10") and int(rows[-1][0]) >= 2, result.output
    # the burst's orders, decisions and maps were answered, pictures among them (a refused
    # order, or one that changed nothing drawn, is answered without one)
    found = re.search(r"(\d+) follow-ups with a picture, (\d+) without one", result.output)
    assert found is not None and int(found[1]) > 0, result.output


def test_secret_commands_skips_unread_only_what_reading_finds_public(tmp_path: Path) -> None:
    """``secret_commands`` (run after every action on the bot's loop) reads only the legal
    orders a secret verb may lead; what it finds is what reading every order finds, on
    positions of both games, secret placements (Stalin's Tanks' hide, Pakfront) included;
    and only while the game names the side entering secrets (20.0)."""
    from bench.common import Table
    from bot.discord.verbs import secret_commands, verb_commands
    from bot.service import GameService
    from bot.store import Store

    def read_all(rules: Any, legal: list[str]) -> list[str]:
        spec = rules.order_spec
        commands = {c.verb.name: c for c in verb_commands(rules.name, spec)}
        return sorted({"/" + commands[read[0].name].qualified_name for order in legal
                       if (read := spec.read(order)) is not None and read[0].verb.secret})

    service = GameService(Store(tmp_path / "secret.db"))
    found = 0
    for game, scenario in (("stalingrad", "historical"), ("tanks", "pakfront")):
        table = Table(service, game, scenario, seed=5)
        rules = service.rules(table.game_id)
        for _ in range(6):
            side = service.info(table.game_id).to_act
            assert side is not None
            legal = service.legal_orders(table.game_id, table.players[side], side)
            expected = read_all(rules, legal)
            assert secret_commands(rules, legal) == expected
            # the bot lists no legal orders for its prompt while no side enters secrets
            # (``private_input``): a secret command is legal only while one does
            assert not expected or service.private_input(table.game_id) == side
            found += bool(expected)
            step = table.next_order()
            assert step is not None
            assert service.submit(table.game_id, *step, table.key()).ok
    assert found  # some position offered a secret placement
    service.store.close()


def test_each_follow_up_is_divided_by_the_p95s_queued_up_to_its_place() -> None:
    """The burst figures' quotient (bench.bursts, issue 26): the places are read from the
    first item (when each took its place), not the order given."""
    from bench.bursts import queued_quotients

    queue = [(2.0, 0.10, 0.30), (1.0, 0.10, 0.10), (3.0, 0.20, 0.80)]
    assert queued_quotients(queue) == pytest.approx([1.0, 1.5, 2.0])
    assert queued_quotients([]) == []


def test_follow_ups_are_read_by_their_place_in_each_burst() -> None:
    """Where a burst misses the quotient: each follow-up at its place in its burst (the
    order its place was taken), over every burst, and the rows printed from them."""
    from bench.bursts import by_place, place_rows

    # binary fractions: the quotients are exact, 1.5 among them (the target: not over)
    first = [(2.0, 0.125, 0.375), (1.0, 0.125, 0.125), (3.0, 0.25, 1.0)]
    second = [(5.0, 0.125, 0.5), (6.0, 0.125, 0.25)]
    places = by_place([first, second])
    assert sorted(places) == [1, 2, 3]
    assert places[1] == [(0.125, 1.0), (0.5, 4.0)]
    assert places[2] == [(0.375, 1.5), (0.25, 1.0)]
    assert places[3] == [(1.0, 2.0)]
    lines: list[str] = []
    place_rows(lines.append, [first, second], places=(1, 2))
    assert lines[0].startswith("  by place in the burst")
    assert [line.split()[1] for line in lines[1:]] == ["1", "2", "3"]  # and the last
    assert lines[1].endswith("1 of 2") and lines[2].endswith("0 of 2")
    assert lines[3].endswith("1 of 1")
    place_rows(lines.append, [])
    assert len(lines) == 4  # no bursts: no rows
