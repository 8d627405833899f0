"""``umpire bench startup`` and ``umpire bench memory`` run and end with their figures (no
timing or size is asserted). They start many processes or games: soak stage."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bot.cli import app

pytestmark = pytest.mark.soak


def figures(output: str) -> list[str]:
    lines = output.strip().splitlines()
    found = [line for line in lines if line.startswith("FIGURE ")]
    assert found and lines[-len(found):] == found
    return found


def test_bench_startup_reports_help_play_and_the_first_picture() -> None:
    result = CliRunner().invoke(app, ["bench", "startup", "--actions", "1"])
    assert result.exit_code == 0, result.output
    names = " ".join(figures(result.output))
    for name in ("umpire --help CPU", "umpire play start-up CPU",
                 "first picture (prepared) / next picture"):
        assert name in names


def test_bench_memory_reports_rss_by_games_held() -> None:
    result = CliRunner().invoke(app, ["bench", "memory", "--actions", "3"])
    assert result.exit_code == 0, result.output
    names = " ".join(figures(result.output))
    assert "RSS with 1 games" in names and "RSS growth from 1 to 3 games" in names
