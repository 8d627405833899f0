"""``umpire mail``: build the gateway from ``mail.toml`` and run it until stopped; a stop
(SIGTERM, SIGINT) finishes the mail in hand, then releases the process's leases."""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path

from bot.mail.config import MailConfig, password
from bot.mail.desk import Desk
from bot.mail.gateway import Gateway
from bot.mail.transport import Inbox, Listener, Outbox
from bot.runtime import release_leases, tune_gc
from bot.service import GameService
from bot.store import Store

log = logging.getLogger("umpire.mail")


def build(config: MailConfig, db: Path | str) -> tuple[Gateway, Listener | None]:
    service = GameService(Store(db))
    desk = Desk(service, config)
    outbox = Outbox(config.smtp, password(config.smtp), config.address)
    inbox = Inbox(config.imap, password(config.imap)) if config.imap is not None else None
    gateway = Gateway(desk, config, outbox, inbox)
    listener = None
    if config.listen is not None:
        listener = Listener(config.listen, gateway.accept, config.limits.max_bytes)
    return gateway, listener


def run(config: MailConfig, db: Path | str) -> None:
    """Run until SIGINT or SIGTERM; mail being handled is finished first."""
    gateway, listener = build(config, db)
    log.info("store: %s (%s)", gateway.desk.service.store.label,
             gateway.desk.service.store.backend)
    tune_gc()  # after start-up (bot.runtime)
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        log.info("stopping (signal %d)", signum)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    if listener is not None:
        listener.start()
        assert config.listen is not None
        log.info("listening for SMTP on %s:%d", config.listen.host, config.listen.port)
    try:
        gateway.run(stop)
    finally:
        if listener is not None:
            listener.stop()
        if gateway.inbox is not None:
            close = getattr(gateway.inbox, "close", None)
            if callable(close):
                close()
        release_leases(gateway.desk.service.store, gateway.holder,
                       gateway.desk.service.instance, log=log)
        gateway.desk.service.store.close()

