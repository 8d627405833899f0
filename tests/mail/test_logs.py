"""Normal work is visible (issue 24): one log line per handled mail — game, actor, verbs,
outcome, milliseconds — and per deadline tick; ``--log-format json`` gives one JSON object
per line with those fields. An order's words never reach the log (a side's secret)."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from bot.logs import LineFormatter, configure
from bot.mail.gateway import Gateway
from tests.mail.support import config, desk, raw_mail, secret_in
from tests.mail.test_gateway import MemoryBox, MemorySender

GM = "gm@player.test"


def mail_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if getattr(r, "fields", {}).get("event") == "mail"]


def test_each_handled_mail_logs_one_line_with_game_actor_verb_outcome_ms(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    office = desk(tmp_path / "umpire.db")
    box = MemoryBox(raw_mail(GM, "create duel\nhelp"))
    sender = MemorySender()
    gateway = Gateway(office, config(), sender, box)
    caplog.set_level(logging.DEBUG, logger="umpire.mail")
    assert gateway.poll() == 1
    (record,) = mail_lines(caplog)
    fields = record.fields  # type: ignore[attr-defined]
    ((_, reply),) = sender.sent
    game_id = reply["X-Umpire-Game"]
    assert fields["game"] == game_id and fields["actor"] == f"email:{GM}"
    assert fields["verb"] == "create,help" and fields["outcome"] == "answered (1 mail)"
    assert isinstance(fields["ms"], int) and fields["ms"] >= 0
    text = record.getMessage()
    assert f"game {game_id}" in text and "verb create,help" in text and " ms" in text

    # An order line is logged as "orders", never its words (a secret trap, a hidden move).
    secret = secret_in_body(reply.get_content())
    box.mails["2"] = raw_mail(GM, f"password {secret}\ntrap 1 at the ford",
                              subject=f"[umpire {game_id}] orders")
    gateway.poll()
    last = mail_lines(caplog)[-1]
    assert last.fields["verb"] == "orders"  # type: ignore[attr-defined]
    assert not any("ford" in r.getMessage() or secret in r.getMessage()
                   for r in caplog.records)

    # The same records as JSON: one object per line, the fields at the top level.
    parsed = json.loads(LineFormatter("json").format(record))
    assert parsed["level"] == "INFO" and parsed["logger"] == "umpire.mail"
    assert {k: parsed[k] for k in ("game", "actor", "verb", "outcome", "ms")} == {
        k: fields[k] for k in ("game", "actor", "verb", "outcome", "ms")}

    # A tick that sends nothing is a debug line; the leader's tick is timed.
    caplog.clear()
    gateway.tick(force=True)
    (tick,) = [r for r in caplog.records if getattr(r, "fields", {}).get("event") == "tick"]
    assert tick.levelno == logging.DEBUG and "deadline tick: 0 mail" in tick.getMessage()


def secret_in_body(body: str) -> str:
    from bot.mail.outbound import Outgoing

    return secret_in(Outgoing(to="", subject="", body=body, audience="private"))


def test_the_json_log_is_one_object_per_line_without_colour() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    kept, level = list(root.handlers), root.level
    configure("json", stream=stream)
    try:
        logging.getLogger("umpire.mail").info(
            "mail %s handled", "k1", extra={"fields": {"game": "g1", "ms": 3}})
        logging.getLogger("umpire.mail").error("it broke", exc_info=ValueError("why"))
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in kept:
            root.addHandler(handler)
        root.setLevel(level)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "\x1b[" not in stream.getvalue()
    first, second = (json.loads(line) for line in lines)
    assert first["message"] == "mail k1 handled" and first["game"] == "g1" and first["ms"] == 3
    assert first["time"].endswith("Z") and second["level"] == "ERROR"
