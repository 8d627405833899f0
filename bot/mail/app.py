"""``umpire mail``: build the gateway from ``mail.toml`` and run it until stopped; a stop
(SIGTERM, SIGINT) finishes the mail in hand, then releases the process's leases."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bot.mail.config import MailConfig, ServerConfig, password
from bot.mail.desk import Desk
from bot.mail.gateway import Gateway
from bot.mail.oauth import TokenSource
from bot.mail.transport import Inbox, Listener, Outbox
from bot.runtime import release_leases, tune_gc
from bot.service import GameService
from bot.store import Store

if TYPE_CHECKING:
    from bot.web.settings import WebSettings

log = logging.getLogger("umpire.mail")
#: How long a stop waits for the gateway to finish what it is doing (a systemd unit's
#: TimeoutStopSec gives it more: deploy/systemd/umpire-mail@.service).
STOP_SECONDS = 8.0


def tokens(server: ServerConfig) -> TokenSource | None:
    """The OAuth2 access tokens of a server logged in to with one (None: a password)."""
    if server.oauth is None:
        return None
    return TokenSource(server.oauth, os.environ)


def build(config: MailConfig, db: Path | str) -> tuple[Gateway, Listener | None]:
    service = GameService(Store(db))
    desk = Desk(service, config)
    outbox = Outbox(config.smtp, password(config.smtp), config.address, tokens(config.smtp))
    inbox = (Inbox(config.imap, password(config.imap), tokens(config.imap))
             if config.imap is not None else None)
    gateway = Gateway(desk, config, outbox, inbox)
    listener = None
    if config.listen is not None:
        listener = Listener(config.listen, gateway.accept, config.limits.max_bytes)
    return gateway, listener


def run(config: MailConfig, db: Path | str, web: WebSettings | None = None) -> None:
    """Run until SIGINT or SIGTERM; mail being handled is finished first, within
    :data:`STOP_SECONDS`: a call waiting on a mail server is cut at once, and a gateway
    that still has not stopped then is left behind (its work is stored before anything is
    sent, so at worst a reply goes out twice after the restart). ``web``: also serve the
    players' web pages over the gateway's service (``--web``, docs/web.md), their
    listings made in a worker process as ``umpire web`` makes them (``bot.offload``)."""
    gateway, listener = build(config, db)
    pages = lister = None
    if web is not None and web.port:
        from bot.offload import ListingPool
        from bot.web.app import ThreadedWebServer

        # the pages fetch their side's legal entries after every action: as umpire web
        lister = gateway.desk.service.lister = ListingPool(1)
        lister.start()
        pages = ThreadedWebServer(gateway.desk.service, web)
        pages.start()
    log.info("store: %s (%s)", gateway.desk.service.store.label,
             gateway.desk.service.store.backend)
    tune_gc()  # after start-up (bot.runtime)
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        log.info("stopping (signal %d)", signum)
        stop.set()
        gateway.interrupt()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    if listener is not None:
        listener.start()
        assert config.listen is not None
        log.info("listening for SMTP on %s:%d", config.listen.host, config.listen.port)
    worker = threading.Thread(target=gateway.run, args=(stop,), name="mail-gateway",
                              daemon=True)
    worker.start()
    while worker.is_alive() and not stop.is_set():
        stop.wait(1.0)  # the main thread takes the signals
    deadline = time.monotonic() + STOP_SECONDS
    while worker.is_alive() and time.monotonic() < deadline:
        gateway.interrupt()  # again: a connection may have been opening at the signal
        worker.join(0.25)
    if listener is not None:
        listener.stop()
    if pages is not None:
        pages.stop()
    if lister is not None:
        lister.close()
    if worker.is_alive():
        log.warning("mail gateway: still waiting on a server %.0f s after the stop; "
                    "leaving it", STOP_SECONDS)
        release_leases(gateway.desk.service.store, gateway.holder,
                       gateway.desk.service.instance, log=log)
        return
    if gateway.inbox is not None:
        close = getattr(gateway.inbox, "close", None)
        if callable(close):
            close()
    release_leases(gateway.desk.service.store, gateway.holder,
                   gateway.desk.service.instance, log=log)
    gateway.desk.service.store.close()
