"""Log lines of Umpire's long-running processes (the Discord bot, the mail gateway): one
format for both, chosen by ``--log-format``.

* ``text`` (the default): ``2026-12-02T06:50:01Z INFO umpire.discord handled game=g1
  actor=discord:42 verb="game map" outcome=ok ms=118`` — one line per record, fields as
  ``key=value`` (quoted when they hold a space or a quote). The level is coloured only when
  the stream is a terminal: a file, a pipe or journald gets no escape codes.
* ``json``: one JSON object per line, ``{"time", "level", "logger", "message", ...fields}``,
  never coloured.

:func:`handled` logs the line of one handled piece of work (an interaction, a mail, a
deadline tick): ``game``, ``actor``, ``verb``, ``outcome`` and ``ms`` (its duration).
Other records carry fields given as ``extra={"fields": {...}}``.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Mapping
from typing import Any, Literal, TextIO

#: The values of ``--log-format``.
FORMATS = ("text", "json")
LogFormat = Literal["text", "json"]

#: The record attribute holding a line's fields.
FIELDS = "fields"

_COLOURS = {"DEBUG": "\x1b[2m", "INFO": "\x1b[32m", "WARNING": "\x1b[33m",
            "ERROR": "\x1b[31m", "CRITICAL": "\x1b[1;31m"}
_RESET = "\x1b[0m"


def _stamp(created: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created))


def _value(value: Any) -> str:
    text = str(value)
    if not text or any(c.isspace() or c in "\"=" for c in text):
        return json.dumps(text, ensure_ascii=False)
    return text


class LineFormatter(logging.Formatter):
    """One record, one line (a traceback follows a text line; it is a field of a JSON one)."""

    def __init__(self, fmt: LogFormat = "text", *, colour: bool = False) -> None:
        super().__init__()
        if fmt not in FORMATS:
            raise ValueError(f"unknown log format {fmt!r}: use one of {', '.join(FORMATS)}")
        self.kind = fmt
        self.colour = colour and fmt == "text"

    def format(self, record: logging.LogRecord) -> str:
        fields: Mapping[str, Any] = getattr(record, FIELDS, None) or {}
        message = record.getMessage()
        error = self.formatException(record.exc_info) if record.exc_info else None
        if self.kind == "json":
            line: dict[str, Any] = {"time": _stamp(record.created), "level": record.levelname,
                                    "logger": record.name, "message": message, **fields}
            if error:
                line["error"] = error
            return json.dumps(line, ensure_ascii=False, default=str)
        level = record.levelname
        if self.colour:
            level = f"{_COLOURS.get(level, '')}{level}{_RESET}"
        text = " ".join([_stamp(record.created), level, record.name, message,
                         *(f"{key}={_value(value)}" for key, value in fields.items())])
        return f"{text}\n{error}" if error else text


def configure(fmt: LogFormat = "text", *, level: int = logging.INFO,
              stream: TextIO | None = None) -> logging.Handler:
    """Send every log record of this process to ``stream`` (standard error by default) in
    ``fmt``, replacing the root logger's handlers; colour only on a terminal."""
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LineFormatter(fmt, colour=bool(isatty and isatty())))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler


def handled(log: logging.Logger, *, game: str | None, actor: str | None, verb: str,
            outcome: str, ms: float, level: int = logging.INFO, **more: Any) -> None:
    """The line of one handled interaction, mail or deadline tick."""
    fields = {"game": game or "-", "actor": actor or "-", "verb": verb, "outcome": outcome,
              "ms": round(ms), **more}
    log.log(level, "handled", extra={FIELDS: fields})


def since(start: float) -> float:
    """Milliseconds since ``start`` (a :func:`time.monotonic` reading)."""
    return (time.monotonic() - start) * 1000.0
