"""``umpire bench discord`` runs the real bot against the fake Discord under a burst and
ends with its figures and their targets (no timing is asserted)."""

from __future__ import annotations

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
    # every order, decision and map the burst sent was answered with a picture
    assert " 0 without (refused)" in result.output
