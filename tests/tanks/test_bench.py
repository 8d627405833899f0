"""``umpire bench tanks`` runs and reports its figures (no timing is asserted)."""

from __future__ import annotations

from typer.testing import CliRunner

from bot.cli import app
from tests.tanks.test_rules_play import check_invariants


def test_bench_tanks_runs_from_the_command_line() -> None:
    result = CliRunner().invoke(app, ["bench", "tanks", "--actions", "10"])
    assert result.exit_code == 0, result.output
    for label in ("LOS, one pair", "LOS, one unit to every hex", "apply a fire order",
                  "legal orders, movement", "ratio fire apply / serialize + hash"):
        assert label in result.output


def test_the_bench_position_is_a_legal_full_position() -> None:
    import importlib.util
    from pathlib import Path

    from adjudicator.tanks.game import TanksGame

    script = Path(__file__).resolve().parents[2] / "bench" / "tanks.py"
    spec = importlib.util.spec_from_file_location("bench_tanks", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    game = TanksGame()
    state = module.full_position(game)
    check_invariants(game, state)
    assert all(u.status == "on" for u in state.units)
    assert any(o.startswith("move ") for o in game.legal_orders(state, "german"))
