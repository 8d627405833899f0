"""No command prints a database password (issue 24): every ``umpire`` command that takes a
database runs with a password URL — one that connects, one with a wrong password, one to a
closed port — and its stdout, stderr and log records are scanned. ``umpire games`` keeps its
table whole when piped. One rule for secrets in config files (bot.config_secrets): the bot's
token and the gateway's database password sit only in files of mode 0600."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from bot.cli import app
from bot.config_secrets import url_has_password
from bot.console import LocalGame
from bot.discord.settings import SettingsError, load_settings
from bot.mail.config import ConfigError, load_config
from bot.service import GameService
from bot.store import Store

runner = CliRunner()
#: Arguments each command needs besides --db (a command missing here fails the test).
ARGUMENTS: dict[str, list[str]] = {
    "play": ["stalingrad"], "bot": [], "mail": ["--config", "{mail}"], "bench": [],
    "export": ["g-none"], "import": ["{missing}"], "games": [], "status": [],
    "render": ["g-none"],
    "export-gif": ["g-none"], "db check": [], "db migrate": [], "web": [],
}
#: Commands given two databases (both with the password URL in turn).
TWO_DATABASES = {"db copy"}
#: Commands with no database at all.
NO_DATABASE = {"conformance", "verify", "redteam", "data check", "data show"}


def _commands(group: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(``name`` or ``group name``, command) of every command under ``group``."""
    for name, command in group.commands.items():
        full = f"{prefix}{name}"
        if hasattr(command, "commands"):
            yield from _commands(command, full + " ")
        else:
            yield full, command


def _password(url: str) -> str:
    match = re.match(r"postgresql://[^:]+:([^@]+)@", url)
    assert match is not None, "the test server's URL carries a password"
    return match.group(1)


@pytest.fixture
def fake_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot and the gateway print their start-up line, then stop instead of serving."""
    import bot.discord.app as discord_app
    import bot.mail.app as mail_app
    import bot.web.app as web_app

    def stop(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError(f"stopped for the test with {args[1]!s}")

    monkeypatch.setattr(discord_app, "run", stop)
    monkeypatch.setattr(mail_app, "run", stop)
    monkeypatch.setattr(web_app, "run", stop)
    monkeypatch.setenv("DISCORD_TOKEN", "test-token")


def test_every_command_with_a_password_url_never_prints_the_password(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, fake_runs: None) -> None:
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    good = _password(pg_url)
    urls = {good: pg_url,
            "wrong-pw-1234": pg_url.replace(good, "wrong-pw-1234"),
            "closed-pw-5678": re.sub(r"@([^/:]+):\d+/", r"@\1:1/",
                                     pg_url.replace(good, "closed-pw-5678"))}
    mail = tmp_path / "mail.toml"
    mail.write_text('address = "umpire@example.org"\n[smtp]\nhost = "127.0.0.1"\n'
                    '[listen]\nport = 8025\n', encoding="utf-8")
    sqlite = str(tmp_path / "other.db")
    Store(sqlite).close()
    group = typer.main.get_command(app)
    runs = 0
    for name, command in _commands(group):
        takes_db = any("--db" in getattr(p, "opts", ()) for p in command.params)
        if name in NO_DATABASE:
            assert not takes_db, f"{name} takes --db: add it to ARGUMENTS"
            continue
        for secret, url in urls.items():
            if name in TWO_DATABASES:
                invocations = [[*name.split(), url, sqlite], [*name.split(), sqlite, url]]
            else:
                assert name in ARGUMENTS, f"umpire {name}: add its arguments to ARGUMENTS"
                args = [a.format(mail=mail, missing=tmp_path / "none.jsonl")
                        for a in ARGUMENTS[name]]
                invocations = [[*name.split(), *args, "--db", url]]
            for argv in invocations:
                caplog.clear()
                result = runner.invoke(app, argv, input="quit\n")
                runs += 1
                shown = result.output + (result.stderr if result.stderr_bytes else "")
                assert secret not in shown, (argv[:2], shown)
                assert secret not in caplog.text, (argv[:2], caplog.text)
                if result.exception is not None and not isinstance(result.exception,
                                                                   SystemExit):
                    assert secret not in str(result.exception), argv[:2]
    assert runs >= 3 * (len(ARGUMENTS) + 2)


def test_the_games_table_is_whole_when_piped(tmp_path: Path) -> None:
    db = tmp_path / "u.db"
    service = GameService(Store(db))
    ids = [LocalGame.new(service, game, None).game_id for game in ("stalingrad", "tanks")]
    service.store.close()
    result = runner.invoke(app, ["games", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    for game_id in ids:
        row = next(line for line in result.output.splitlines() if game_id in line)
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", row), row
        assert "active" in row or "setup" in row, row


# ---- one rule for secrets in config files -------------------------------------------------

def _mail_toml(tmp_path: Path, database: str, mode: int) -> Path:
    path = tmp_path / "mail.toml"
    path.write_text(f'address = "umpire@example.org"\ndatabase = "{database}"\n'
                    '[smtp]\nhost = "127.0.0.1"\n[listen]\nport = 8025\n', encoding="utf-8")
    path.chmod(mode)
    return path


def test_a_database_password_in_a_mail_toml_others_may_read_is_refused(tmp_path: Path) -> None:
    url = "postgresql://umpire:s3cret-pw@127.0.0.1/umpire"
    with pytest.raises(ConfigError) as caught:
        load_config(_mail_toml(tmp_path, url, 0o644))
    assert "chmod 600" in str(caught.value) and "UMPIRE_DB" in str(caught.value)
    assert "s3cret-pw" not in str(caught.value)
    assert load_config(_mail_toml(tmp_path, url, 0o600)).database == url
    assert load_config(_mail_toml(tmp_path, "postgresql://umpire@h/db", 0o644)).database
    with pytest.raises(ConfigError, match="unknown database kind mysql"):
        load_config(_mail_toml(tmp_path, "mysql://u@h/db", 0o600))


def test_a_discord_token_in_a_config_file_others_may_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "discord.toml"
    path.write_text('token = "tok-in-file"\n', encoding="utf-8")
    path.chmod(0o644)
    for environ in ({}, {"DISCORD_TOKEN": "from-env"}):
        with pytest.raises(SettingsError) as caught:
            load_settings(path, environ=environ)
        assert "chmod 600" in str(caught.value) and "DISCORD_TOKEN" in str(caught.value)
        assert "tok-in-file" not in str(caught.value)
    path.chmod(0o600)
    assert load_settings(path, environ={}).token.reveal() == "tok-in-file"
    path.write_text("guild = 1\n", encoding="utf-8")
    path.chmod(0o644)  # no secret in it: any mode
    assert load_settings(path, environ={"DISCORD_TOKEN": "t"}).guild_id == 1


def test_a_url_password_is_seen_in_every_form() -> None:
    assert url_has_password("postgresql://u:pw@h/db")
    assert url_has_password("postgres://h/db?password=pw")
    assert not url_has_password("postgresql://u@h/db")
    assert not url_has_password("/srv/umpire.db")


def test_a_gateway_without_a_database_names_its_default_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_runs: None) -> None:
    monkeypatch.delenv("UMPIRE_DB", raising=False)
    mail = tmp_path / "mail.toml"
    mail.write_text('address = "umpire@example.org"\n[smtp]\nhost = "127.0.0.1"\n'
                    '[listen]\nport = 8025\n', encoding="utf-8")
    from bot.store import data_folder

    result = runner.invoke(app, ["mail", "--config", str(mail)])
    assert str(data_folder() / "umpire.db") in result.output, result.output
    assert "the default file: no database in" in result.output
