"""``umpire bench writers`` plays a real Turning Point: Stalingrad game through writer
processes on each backend, at both durabilities, and ends with its figures and their
targets (no timing is asserted)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bot.cli import app


def _figures(output: str) -> list[str]:
    lines = output.strip().splitlines()
    figures = [line for line in lines if line.startswith("FIGURE ")]
    assert figures and lines[-len(figures):] == figures
    return figures


def test_bench_writers_on_sqlite_plays_stalingrad_at_both_durabilities() -> None:
    result = CliRunner().invoke(app, ["bench", "writers", "--actions", "4"])
    assert result.exit_code == 0, result.output
    assert "of a seeded Turning Point: Stalingrad game" in result.output
    assert "fsync at commit:" in result.output and "no fsync at commit:" in result.output
    assert "one submit on sqlite: " in result.output
    figures = _figures(result.output)
    for durability in ("fsync at commit", "no fsync at commit"):
        line = next(f for f in figures
                    if f.startswith(f"FIGURE sqlite errors at any writer count ({durability})"))
        assert line.endswith("(target <= 0) ok"), line  # a refused script order is an error


def test_bench_writers_compares_postgresql_side_by_side(pg_url: str) -> None:
    result = CliRunner().invoke(app, ["bench", "writers", "--actions", "4", "--db", pg_url])
    assert result.exit_code == 0, result.output
    assert "postgresql server: fsync=" in result.output
    assert "one submit on postgresql: " in result.output
    figures = _figures(result.output)
    for durability in ("fsync at commit", "no fsync at commit"):
        for name, target in (
                (f"postgresql submit p50 / sqlite's, one writer ({durability})", "<= 2x"),
                (f"postgresql peak throughput / one writer's ({durability})", ">= 3x"),
                (f"postgresql errors at any writer count ({durability})", "<= 0")):
            assert any(f.startswith(f"FIGURE {name}: ") and f"(target {target})" in f
                       for f in figures), name
        assert any(f.startswith(f"FIGURE postgresql errors at any writer count ({durability})")
                   and f.endswith(" ok") for f in figures)


def test_the_peak_ceiling_is_cores_times_one_writers_wall_over_its_cpu() -> None:
    """Two cores, one writer storing 40 orders/s (25 ms of wall each) that spend 8 ms of
    its own CPU and 2 ms of the server's per order: at most 2 x 25 / 10 = 5x one writer's."""
    from bench.writers import ceiling

    assert ceiling(2, 40.0, 8.0, 2.0) == pytest.approx(5.0)
    assert ceiling(1, 100.0, 10.0, 0.0) == pytest.approx(1.0)  # CPU-bound on one core


def test_the_server_cpu_is_read_from_proc_when_the_server_is_local(pg_url: str) -> None:
    """The bench finds the local server's postmaster and reads its CPU, which grows with
    the work of a connection that then closes (its backend's time moves to the parent)."""
    import psycopg

    from bench.writers import _server_cpu, _server_pid
    from bot.store.postgres import split_url

    postmaster = _server_pid(pg_url)
    assert postmaster is not None
    before = _server_cpu(postmaster)
    assert before is not None and before > 0
    with psycopg.connect(split_url(pg_url)[0], autocommit=True) as conn:
        conn.execute("SELECT count(*) FROM generate_series(1, 3000000)")
    after = _server_cpu(postmaster)
    assert after is not None and after > before
    assert _server_cpu(None) is None
    result = CliRunner().invoke(app, ["bench", "writers", "--actions", "4", "--db", pg_url])
    assert "its CPU read from /proc" in result.output
    assert "ceiling of the peak over one writer's: " in result.output
