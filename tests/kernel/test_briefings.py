"""Every scenario's briefing (issue 23): sides, length, victory, special rules with their rule
numbers and features, from the data packs (briefings.toml and what the rest of the pack
states); at the console at start and on `brief`; never a secret of a game's state."""

from __future__ import annotations

import io
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from adjudicator.kernel.errors import RuleError
from adjudicator.registry import load_game
from adjudicator.stalingrad import data as stalingrad_data
from adjudicator.tanks import data as tanks_data
from bot import commands as catalogue
from bot.console import FunctionIO, LocalGame, Session
from bot.service import Actor, GameService
from bot.store import Store

PACKS = {"stalingrad": stalingrad_data, "tanks": tanks_data}


@pytest.mark.parametrize("name", ["stalingrad", "tanks"])
def test_every_scenario_has_a_briefing_25_and_sawmill(name: str) -> None:
    """All 4 TP:S and 7 Stalin's Tanks (25.1-25.7) scenarios: both sides' goals, the length,
    victory lines, special rules each under a rule number."""
    game = load_game(name)
    assert len(game.scenarios()) == {"stalingrad": 4, "tanks": 7}[name]
    for key in game.scenarios():
        brief = game.briefing(key)
        assert set(brief.goals) == set(game.sides) and all(brief.goals.values())
        assert brief.victory and brief.length and brief.special
        assert all(rule.rule and rule.text for rule in brief.special)
        text = brief.text()
        for side in game.sides:
            assert f"{side.capitalize()}: " in text
        assert "Features: " in text and brief.title in text
    assert game.briefing(None) == game.briefing(next(iter(game.scenarios())))
    with pytest.raises(RuleError, match="unknown scenario"):
        game.briefing("no-such-scenario")


def test_tanks_briefings_derive_turns_victory_and_features_from_the_pack_25() -> None:
    """25.1-25.7: turns and victory levels come from scenarios.toml, not from prose; hidden
    units (20.0), mines (19.0) and a face-down set-up (25.7) are named where the scenario has
    them, and only there."""
    game = load_game("tanks")
    pack = tanks_data.load_pack()
    for key, sc in pack.scenarios.items():
        brief = game.briefing(key)
        assert brief.length.startswith(f"{sc.turns} turns")
        assert sc.victory.text in brief.victory
        for level in sc.victory.level:
            bound = level.min if level.min is not None else level.max
            assert str(bound) in brief.victory[1]
        names = brief.feature_names()
        assert ("hidden units" in names) == any(h.mode == "hidden" for h in sc.hidden)
        assert ("mines" in names) == bool(sc.mines)
        assert ("face-down set-up" in names) == any(s.face_down for s in sc.setup)
        assert "bids" not in names
    assert game.briefing("pakfront").feature_names() == ["hidden units"]
    assert game.briefing("kursk-salient").feature_names() == ["mines"]
    assert game.briefing("gauntlet").feature_names() == ["face-down set-up"]
    assert any("Treat all stream" in r.text and r.rule == "25.3"
               for r in game.briefing("kursk-salient").special)


def test_stalingrad_briefings_take_the_victory_numbers_from_the_calendar_19_2_21_1() -> None:
    """19.2 (blue numbers), 21.1 (red ranges), Sawmill 3 (the VP target) and 20.2 (September
    13's fixed impulses) come from the pack; 22.1's bids are an optional feature."""
    game = load_game("stalingrad")
    pack = stalingrad_data.load_pack()
    weeks = pack.calendar.weeks
    historical = game.briefing("historical")
    assert all(f"week {w.number} {w.blue}" in historical.victory[1] for w in weeks)
    simulation = game.briefing("simulation")
    assert all(f"week {w.number} {w.red[0]}-{w.red[1]}" in simulation.victory[1]
               for w in weeks)
    sawmill = game.briefing("sawmill")
    assert f"{pack.scenarios['sawmill'].victory_vp} Victory Points" in sawmill.victory[0]
    assert "1 week" in sawmill.length
    fixed = pack.scenarios["historical"].sept13_fixed_day_impulses
    assert any(f"first {fixed} German daylight" in r.text for r in historical.special)
    assert historical.features == ["bids (22.1, optional)"]


def _copy_pack(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(PACKS[name].DEFAULT_PACK, target,
                    ignore=shutil.ignore_patterns("tools", "__pycache__"))
    return target


@pytest.mark.parametrize("name,scenario", [("stalingrad", "sawmill"), ("tanks", "gauntlet")])
def test_a_pack_without_a_scenarios_briefing_does_not_load(tmp_path: Path, name: str,
                                                           scenario: str) -> None:
    """The pack loader validates briefings.toml: a scenario without a briefing, a briefing
    of no scenario, goals naming other sides are each a problem."""
    pack = _copy_pack(tmp_path, name)
    file = pack / "briefings.toml"
    raw: dict[str, Any] = tomllib.loads(file.read_text(encoding="utf-8"))
    assert PACKS[name].check_pack(pack) == []
    kept = [b for b in raw["briefing"] if b["scenario"] != scenario]
    assert len(kept) == len(raw["briefing"]) - 1
    file.write_text(_briefings_toml(kept), encoding="utf-8")
    problems = PACKS[name].check_pack(pack)
    assert f"briefings.toml: {scenario}: the scenario has no briefing" in problems
    stray = [*kept, {**kept[0], "scenario": "atlantis", "goals": {"blue": "swim"}}]
    file.write_text(_briefings_toml(stray), encoding="utf-8")
    problems = PACKS[name].check_pack(pack)
    assert any(p.startswith("briefings.toml: atlantis: no such scenario") for p in problems)
    assert any(p.startswith("briefings.toml: atlantis: goals must name the sides")
               for p in problems)


def _briefings_toml(records: list[dict[str, Any]]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        assert isinstance(v, dict)
        return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"

    return "\n".join("[[briefing]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in r.items())
                     for r in records)


def _session(tmp_path: Path, scenario: str, public: list[str], private: list[str]
             ) -> tuple[Session, GameService, LocalGame, io.StringIO]:
    service = GameService(Store(tmp_path / "umpire.db"), seed_source=lambda n: b"\x05" * n)
    local = LocalGame.new(service, "tanks", scenario)
    out = io.StringIO()
    lines, secret = iter(public), iter(private)
    console = Session(service, local, FunctionIO(lambda _p: next(lines), lambda _p: next(secret)),
                      Console(file=out, width=220))
    return console, service, local, out


def test_the_console_shows_the_briefing_at_start_and_on_brief_25_1(tmp_path: Path) -> None:
    """25.1 First Encounter: the briefing is printed when the game starts and again on
    `brief`; `help` lists the command."""
    console, _service, _local, out = _session(tmp_path, "first-encounter",
                                              ["help", "brief", "quit"], [])
    console.run()
    text = out.getvalue()
    brief = load_game("tanks").briefing("first-encounter").text()
    assert text.count(brief) == 2
    start, on_brief = text.index(brief), text.rindex(brief)
    listed = catalogue.command("brief")  # help lists it as the catalogue says
    assert listed is not None
    assert start < text.index("Dice commitment") < text.index(listed.summary) < on_brief


def test_a_briefing_never_names_a_hidden_units_hex_20_0(tmp_path: Path) -> None:
    """20.0: with German units hidden on the map (25.2), the briefing anyone reads through
    the service is the scenario's, word for word: no hidden unit's hex in it."""
    _console, service, local, _out = _session(tmp_path, "pakfront", [], [])
    result = local.send("german", "hide pak75-1 0105;hide flak88-1 2214;hide pak88-1 0917")
    assert result.ok, result
    state: Any = service.load_state(local.game_id)
    hidden = {u.hex for u in state.units if u.hidden and u.hex}
    assert {"0105", "2214", "0917"} <= hidden
    stranger = Actor(email="someone@example.org")
    brief = service.briefing(local.game_id, stranger)
    assert brief == load_game("tanks").briefing("pakfront")
    text = brief.text()
    assert not any(hex_ in text for hex_ in hidden)
    assert "hidden units (20.0)" in text


def test_a_briefing_never_names_a_mined_hex_19_1(tmp_path: Path) -> None:
    """19.1: mines are written down secretly (25.3): with them laid, the briefing read
    through the service names no mined hex — and says the scenario has mines."""
    _console, service, local, _out = _session(tmp_path, "kursk-salient", [], [])
    assert local.send("soviet", "mine 1620;mine 1818;mine 2016").ok
    state: Any = service.load_state(local.game_id)
    mined = set(state.mines["soviet"])
    assert mined == {"1620", "1818", "2016"}
    brief = service.briefing(local.game_id, Actor(email="german@example.org"))
    assert brief == load_game("tanks").briefing("kursk-salient")
    assert not any(hex_ in brief.text() for hex_ in mined)
    assert "mines (19.0)" in brief.text()


def test_the_leak_scan_reads_the_briefing_and_finds_no_secret_19_1(tmp_path: Path) -> None:
    """The red team's leak scan reads the briefing as every audience in a game with secret
    mines (25.3, 19.1): no secret in it (the hidden units of 25.2: the test above)."""
    from bot.redteam.leaks import Tally, play_and_scan

    tally = Tally()
    play_and_scan(tmp_path, "tanks", "kursk-salient", 8, 3, tally)
    assert tally.tried["leak scan: briefing"] > 0
    assert tally.failed["leak scan: briefing"] == 0, tally.examples


def test_the_cli_lists_each_scenarios_features_20_0_19_0_25_7_22_1() -> None:
    """`umpire data show GAME` has a features column; `umpire play --help` names the
    features after each scenario (hidden units 20.0, mines 19.0, a face-down set-up 25.7,
    TP:S's optional bids 22.1)."""
    import subprocess
    import sys

    from typer.testing import CliRunner

    from bot.cli import app

    shown = CliRunner().invoke(app, ["data", "show", "tanks"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    rows = {line.split("│")[1].strip(): line for line in shown.output.splitlines()
            if line.count("│") >= 4}
    assert "hidden units (20.0)" in rows["pakfront"]
    assert "mines (19.0)" in rows["kursk-salient"]
    assert "face-down set-up (25.7)" in rows["gauntlet"]
    assert "hidden" not in rows["first-encounter"] and "mines" not in rows["first-encounter"]
    code = ("import sys; sys.argv = ['umpire', 'play', 'tanks', '--help']\n"
            "from bot.cli import app\napp()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    helped = " ".join(done.stdout.split()).replace("- ", "-")  # the help text is wrapped
    assert "pakfront [hidden units]" in helped and "kursk-salient [mines]" in helped
    assert "gauntlet [face-down set-up]" in helped and "historical [bids]" in helped
