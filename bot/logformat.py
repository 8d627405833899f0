"""The log's format for the long-running commands (``umpire mail``; ``umpire bot`` may use
it too): ``text`` — one line per record, ``TIME LEVEL message`` — or ``json`` — one JSON
object per line with ``time``, ``level``, ``logger``, ``message`` and the record's own
fields (``extra={"fields": {...}}``: game, actor, verb, outcome, ms …), for a log
collector. Neither writes colour codes.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Literal, TextIO

LogFormat = Literal["text", "json"]
TEXT = "%(asctime)s %(levelname)s %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name,
            "message": record.getMessage()}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            data.update({k: v for k, v in fields.items() if k not in data})
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def configure(fmt: LogFormat = "text", stream: TextIO | None = None,
              level: int = logging.INFO) -> None:
    """Send the log to ``stream`` (stderr) in ``fmt``, replacing earlier handlers."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
