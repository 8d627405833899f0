"""`umpire bench autocomplete` runs and prints its figures (no timing is asserted)."""

from __future__ import annotations

from typer.testing import CliRunner

from bot.cli import app


def test_bench_autocomplete_prints_medians_and_ratios() -> None:
    result = CliRunner().invoke(app, ["bench", "autocomplete", "--actions", "5"])
    assert result.exit_code == 0, result.output
    for game in ("stalingrad", "tanks"):
        assert f"{game} (" in result.output
    assert result.output.count("ratio suggest / legal orders") == 2
