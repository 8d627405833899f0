"""Log lines of the long-running processes (issue 24): one line per record in text or JSON,
no colour codes unless the stream is a terminal, ``--log-format`` checked by the CLI."""

from __future__ import annotations

import io
import json
import logging

import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.logs import LineFormatter, configure, handled


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def restore_logging() -> object:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield None
    root.handlers[:] = handlers
    root.setLevel(level)


def _line(fmt: str, stream: io.StringIO) -> str:
    configure(fmt, stream=stream)  # type: ignore[arg-type]
    handled(logging.getLogger("umpire.test"), game="g1", actor="discord:42",
            verb="game map", outcome="ok", ms=117.6)
    return stream.getvalue()


def test_a_text_line_holds_the_fields_and_no_colour_off_a_terminal(
        restore_logging: object) -> None:
    text = _line("text", io.StringIO())
    assert text.count("\n") == 1
    assert 'INFO umpire.test handled game=g1 actor=discord:42 verb="game map" outcome=ok ' \
           'ms=118' in text
    assert "\x1b" not in text


def test_a_text_line_on_a_terminal_is_coloured(restore_logging: object) -> None:
    assert "\x1b[32mINFO\x1b[0m" in _line("text", _Terminal())


def test_a_json_line_is_one_object_never_coloured(restore_logging: object) -> None:
    text = _line("json", _Terminal())
    assert text.count("\n") == 1 and "\x1b" not in text
    line = json.loads(text)
    assert {k: line[k] for k in ("level", "logger", "message", "game", "actor", "verb",
                                 "outcome", "ms")} == {
        "level": "INFO", "logger": "umpire.test", "message": "handled", "game": "g1",
        "actor": "discord:42", "verb": "game map", "outcome": "ok", "ms": 118}
    assert line["time"].endswith("Z")


def test_a_traceback_stays_inside_a_json_line() -> None:
    formatter = LineFormatter("json")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys
        record = logging.LogRecord("umpire.test", logging.ERROR, __file__, 1, "failed", (),
                                   sys.exc_info())
    line = formatter.format(record)
    assert "\n" not in line
    assert "RuntimeError: boom" in json.loads(line)["error"]


def test_an_unknown_log_format_is_refused_with_the_legal_ones() -> None:
    with pytest.raises(ValueError, match="text, json"):
        LineFormatter("xml")  # type: ignore[arg-type]
    result = CliRunner().invoke(app, ["bot", "--log-format", "xml", "--check-commands"])
    assert result.exit_code == 2
    assert "--log-format xml: use one of text, json" in result.output
