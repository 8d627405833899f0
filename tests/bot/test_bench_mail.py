"""``umpire bench mail`` runs the gateway against dovecot and an SMTP server on loopback,
its 20-game burst included (issue 26); the smoke size here (no timing is asserted)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bot.cli import app
from tests.mail.servers import dovecot_binary


@pytest.mark.skipif(dovecot_binary() is None, reason="dovecot is not installed")
def test_bench_mail_smoke_run_answers_every_game_of_its_burst() -> None:
    result = CliRunner().invoke(app, ["bench", "mail", "--actions", "4"])
    assert result.exit_code == 0, result.output
    assert "orders   4 mails" in result.output
    assert "latency  APPEND -> reply over 3 mails (IDLE)" in result.output
    # every game of the burst got its reply (the bench raises otherwise)
    assert "burst    3 games, one mail each appended at once (IDLE)" in result.output
    # it ends with its figures, the burst's against its target (issue 26)
    lines = result.output.strip().splitlines()
    figures = [line for line in lines if line.startswith("FIGURE ")]
    assert figures and lines[-len(figures):] == figures
    assert any(f.startswith("FIGURE mail burst of 3: reply / (one mail's latency + cost x "
                            "place) p95: ") and "(target <= 1.5x)" in f for f in figures)
