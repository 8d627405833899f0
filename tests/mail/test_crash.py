"""``umpire mail`` killed with SIGKILL in the middle of a full mailbox, again and again, and
started anew: no order is lost and none is applied twice (the mail is marked handled only
after its action is stored; the action's idempotency key is the mail's Message-ID).
A mail delivered twice is answered once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from bot.seat_secrets import new_secret
from bot.service import Actor, GameService
from bot.store import Store
from tests.mail.conftest import gateway_config
from tests.mail.servers import MAIL_PASSWORD, SMTP_PASSWORD, Dovecot, LocalCA, SmtpSink
from tests.mail.support import DUEL, raw_mail
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
MAILS = 36


def toml_of(config: dict[str, object]) -> str:
    lines: list[str] = []
    tables = {k: v for k, v in config.items() if isinstance(v, dict)}
    for key, value in config.items():
        if not isinstance(value, dict) and value is not None:
            lines.append(f"{key} = {_toml(value)}")
    for name, table in tables.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {_toml(v)}" for k, v in table.items() if v is not None]
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def head(db: Path, game_id: str) -> int:
    with sqlite3.connect(db, timeout=30) as conn:
        row = conn.execute("SELECT head_seq FROM games WHERE id = ?", [game_id]).fetchone()
    return int(row[0])


def start_gateway(config_path: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "UMPIRE_IMAP_PASSWORD": MAIL_PASSWORD,
           "UMPIRE_SMTP_PASSWORD": SMTP_PASSWORD}
    return subprocess.Popen([sys.executable, "-m", "tests.umpire_with_test_games", "mail",
                             "--config", str(config_path)], cwd=ROOT, env=env,
                            stdout=log.open("ab"), stderr=subprocess.STDOUT)


def test_kill_9_mid_mailbox_loses_no_order_and_applies_none_twice(
        dovecot: Dovecot, mailbox: str, sink: SmtpSink, ca: LocalCA, tmp_path: Path) -> None:
    config = gateway_config(dovecot, mailbox, sink, ca, tmp_path)
    db = Path(str(config.database))
    service = GameService(Store(db))
    gm, red, blue = (Actor.mail(a) for a in ("gm@club.test", "red@club.test",
                                            "blue@club.test"))
    keys = {"red": new_secret(), "blue": new_secret()}
    game_id = service.create_game(gm, DUEL["duel"], creator_secret=new_secret()).id
    service.seat(game_id, gm, "red", red, secret=keys["red"])
    service.seat(game_id, gm, "blue", blue, secret=keys["blue"])
    service.start(game_id, gm)
    assert service.submit(game_id, red, "trap 1").ok
    service.store.close()

    mails = []
    for number in range(MAILS):
        side = "red" if number % 2 == 0 else "blue"
        mails.append(raw_mail(f"{side}@club.test", f"password {keys[side]}\npass",
                              subject=f"[umpire {game_id}] turn {number}",
                              message_id=f"<turn{number}@club.test>"))
    dovecot.append(*mails, user=mailbox)
    data = config.model_dump(mode="json", exclude_none=True)
    data["imap"]["poll_seconds"] = 0.2
    config_path = tmp_path / "mail.toml"
    config_path.write_text(toml_of(data))
    log = tmp_path / "gateway.log"

    kills = 0
    for _ in range(3):
        before = head(db, game_id)
        gateway = start_gateway(config_path, log)
        try:
            until(lambda b=before: head(db, game_id) >= b + 4, "orders applied")
        finally:
            gateway.send_signal(signal.SIGKILL)
            gateway.wait(10)
        kills += 1
        if head(db, game_id) >= 1 + MAILS:
            break
    assert kills >= 2 and head(db, game_id) < 1 + MAILS, "the mailbox emptied before a kill"
    # A duplicate delivery of a mail already handled, then the rest of the mailbox.
    dovecot.append(mails[0], user=mailbox)
    gateway = start_gateway(config_path, log)
    try:
        until(lambda: dovecot.count("INBOX", mailbox) == 0, "an empty mailbox", 90)
        gateway.send_signal(signal.SIGTERM)
        assert gateway.wait(20) == 0, log.read_text()[-3000:]
    finally:
        if gateway.poll() is None:
            gateway.kill()
    assert head(db, game_id) == 1 + MAILS, log.read_text()[-3000:]
    store = Store(db)
    try:
        actions = store.actions(game_id)
        assert [a["text"] for a in actions[1:]] == ["pass"] * MAILS
        assert [a["side"] for a in actions[1:]] == ["red", "blue"] * (MAILS // 2)
        keys_used = [r["key"] for r in store.db.query(
            "SELECT key FROM idempotency WHERE game_id = ?", [game_id])]
        assert len(keys_used) == len(set(keys_used)) == MAILS
    finally:
        store.close()
    replies = [m for m in sink.received if m.header("Auto-Submitted") == "auto-replied"]
    answered = {m.header("In-Reply-To") for m in replies}
    assert answered == {f"<turn{n}@club.test>" for n in range(MAILS)}  # every mail answered
    assert not any("not applied" in m.text for m in replies)
    assert "was handled before" in log.read_text()  # the duplicate: a log line, no reply
    assert dovecot.count("Umpire-handled", mailbox) >= MAILS + 1  # moved, none left
