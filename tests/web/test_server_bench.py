"""``umpire bench web`` (issue 25) runs in ``bench all`` and prints its figures: the page's
update over the service's submit, its page load over the service's View and picture (the
smoke size here: no timing is asserted)."""

from __future__ import annotations

from typer.testing import CliRunner

from bot.cli import _benches, app


def test_bench_web_is_one_of_bench_all() -> None:
    assert "web" in _benches()


def test_bench_web_smoke_run_prints_its_figures() -> None:
    result = CliRunner().invoke(app, ["bench", "web", "--actions", "6"])
    assert result.exit_code == 0, result.output
    assert "FIGURE web update / submit (p50)" in result.output
    assert "FIGURE web page load / view + picture (p50)" in result.output
