"""Every command names its database the same ways (issue 27.4): ``sqlite:///ABS/PATH`` is
the file /ABS/PATH (never ./sqlite:/ABS/PATH), a relative ``sqlite://`` URL is relative to
the working folder, and a target no backend takes is refused with what is accepted,
making nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.store import Store
from tests.dbs import sqlite_url

CHECKOUT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _sqlite_folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.lower().startswith("sqlite:"))


@pytest.mark.parametrize("form", ["sqlite://{abs}", "sqlite:///{abs}"])
def test_every_db_command_uses_the_file_an_absolute_sqlite_url_names(
        form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    wanted = tmp_path / "store" / "u.db"
    url = form.format(abs=wanted)
    result = runner.invoke(app, ["games", "--db", url])
    assert result.exit_code == 0, result.output
    assert f"{wanted} does not exist" in result.output
    result = runner.invoke(app, ["db", "migrate", "--db", url])
    assert result.exit_code == 0, result.output
    assert wanted.is_file()
    result = runner.invoke(app, ["db", "check", "--db", url])
    assert result.exit_code == 0, result.output
    assert "no such database file" not in result.output
    assert f"{wanted}: 0 games" in result.output
    result = runner.invoke(app, ["games", "--db", url])
    assert result.exit_code == 0, result.output
    assert f"0 game(s) in {wanted}" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_db_copy_takes_sqlite_urls_on_both_sides(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Store(tmp_path / "a.db").close()
    result = runner.invoke(app, ["db", "copy", f"sqlite://{tmp_path / 'a.db'}",
                                 f"sqlite://{tmp_path / 'b.db'}"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "b.db").is_file()
    assert _sqlite_folders(tmp_path) == []


@pytest.mark.parametrize("command", [["games"], ["db", "check"], ["db", "migrate"],
                                     ["export", "g1"], ["render", "g1"]])
@pytest.mark.parametrize("target", ["sqlite:/abs/u.db", "mysql://u@h/db", "postgresql:db"])
def test_a_target_no_backend_takes_ends_the_command_with_what_is_accepted(
        command: list[str], target: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, [*command, "--db", target])
    assert result.exit_code == 2, result.output
    assert "umpire: --db:" in result.output
    assert "postgresql://USER@HOST/DB" in result.output or "sqlite:///" in result.output
    assert list(tmp_path.iterdir()) == []


def test_the_test_suites_sqlite_urls_leave_no_sqlite_folder_in_the_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite names its SQLite databases by URL (tests.dbs.sqlite_url); opened from the
    checkout, they make their file in the test's folder and nothing in the checkout."""
    monkeypatch.chdir(CHECKOUT)
    Store(sqlite_url(tmp_path / "x.db")).close()
    assert (tmp_path / "x.db").is_file()
    assert _sqlite_folders(CHECKOUT) == []
