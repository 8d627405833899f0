"""``umpire bench pipeline`` runs through the real service and renderer and ends with one
line per figure and its target (no timing is asserted)."""

from __future__ import annotations

from typer.testing import CliRunner

from bot.cli import app


def test_bench_pipeline_prints_both_games_and_ends_with_its_figures() -> None:
    result = CliRunner().invoke(app, ["bench", "pipeline", "--actions", "4"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert "Turning Point: Stalingrad (historical): 4 actions" in result.output
    assert "Stalin's Tanks (all seven scenarios): 4 actions" in result.output
    figures = [line for line in lines if line.startswith("FIGURE ")]
    assert lines[-len(figures):] == figures
    for name in ("stalingrad pipeline (zoom) / (apply + PNG encode) p50",
                 "stalingrad pipeline (zoom) / (apply + PNG encode) p95",
                 "stalingrad pipeline (whole map) / PNG encode p95",
                 "tanks pipeline (whole map) / PNG encode p95",
                 "tanks pipeline (zoom) / (apply + PNG encode) p50",
                 "tanks pipeline (zoom) / (apply + PNG encode) p95"):
        assert any(line.startswith(f"FIGURE {name}: ") and "(target <= " in line
                   for line in figures), name
    # the old ratio (÷ PNG encode alone) stays printed, without a target (issue 26)
    for name in ("stalingrad pipeline (zoom) / PNG encode p50",
                 "tanks pipeline (zoom) / PNG encode p95"):
        assert any(line.startswith(f"FIGURE {name}: ") and "(no target)" in line
                   for line in figures), name
