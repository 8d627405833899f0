"""``mail.toml`` and ``umpire mail``: clear errors, passwords only from the environment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.mail.config import ConfigError, Secret, load_config, password

GOOD = """
address = "Umpire@Example.org"
[imap]
host = "imap.example.org"
user = "umpire@example.org"
[smtp]
host = "smtp.example.org"
user = "umpire@example.org"
"""


def test_a_config_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "mail.toml"
    path.write_text(GOOD)
    config = load_config(path)
    assert config.address == "umpire@example.org" and config.domain == "example.org"
    assert config.imap is not None and config.imap.port == 993 and config.imap.tls == "implicit"
    assert config.smtp.port == 587 and config.smtp.tls == "starttls"
    secret = password(config.smtp, {"UMPIRE_SMTP_PASSWORD": "hunter2"})
    assert isinstance(secret, Secret) and secret.reveal() == "hunter2"
    assert "hunter2" not in repr(secret) and "hunter2" not in str(secret)
    assert password(config.imap, {}) is None


@pytest.mark.parametrize(("text", "problem"), [
    (GOOD + 'password = "x"\n', "passwords do not go in the file"),
    (GOOD.replace("[imap]", "[imap]\npassword = \"x\""), "passwords do not go in the file"),
    (GOOD.replace('"Umpire@Example.org"', '"not an address"'), "not an email address"),
    (GOOD.replace('host = "smtp.example.org"', 'host = "smtp.example.org"\ntls = "ssl3"'),
     "smtp.tls"),
    ('address = "u@x.org"\n[smtp]\nhost = "h"\n', "give an [imap] mailbox"),
    ("address = ", "cannot read"),
])
def test_bad_configs_say_what_is_wrong(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "mail.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(problem)):
        load_config(path)


def test_umpire_mail_refuses_a_missing_config(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["mail", "--config", str(tmp_path / "none.toml")])
    assert result.exit_code == 2 and "no config file" in result.output
