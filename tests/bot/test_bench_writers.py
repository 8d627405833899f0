"""``umpire bench writers`` plays a real Turning Point: Stalingrad game through writer
processes on each backend, at both durabilities, and ends with its figures and their
targets (no timing is asserted)."""

from __future__ import annotations

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
