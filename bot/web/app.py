"""The web server's application: :func:`make_app` builds it over a game service (the tests
run it on a loopback port), :class:`WebServer` starts and stops it inside a running event
loop (``umpire bot --web``, ``umpire mail --web``), :func:`run` serves until stopped
(``umpire web``, through :func:`serve`)."""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import web

from bot.runtime import tune_gc
from bot.service import GameService
from bot.web import clicks, routes
from bot.web.events import Watchers
from bot.web.seat import SeatReads
from bot.web.security import AccessLogger, RateLimiter, access, headers_middleware
from bot.web.settings import HERE, MAX_BODY, WebSettings

log = logging.getLogger("umpire.web")


def make_app(service: GameService, settings: WebSettings | None = None) -> web.Application:
    """The application serving every link over ``service``."""
    settings = settings or WebSettings()
    app = web.Application(middlewares=[headers_middleware], client_max_size=MAX_BODY)
    reads = SeatReads(service)
    app[routes.READS] = reads
    app[routes.SETTINGS] = settings
    app[routes.WATCHERS] = Watchers(
        lambda game_ids: asyncio.to_thread(service.link_watch, game_ids), settings.poll)
    app[routes.PER_LINK] = RateLimiter(*settings.per_link)
    app[routes.PER_ADDRESS] = RateLimiter(*settings.per_address)
    app[routes.SUBMITS] = RateLimiter(*settings.submits)
    orders = app[routes.ORDERS] = ThreadPoolExecutor(settings.orders_at_once,
                                                     thread_name_prefix="umpire-web-orders")
    app[routes.STREAMS] = {}
    routes.add_routes(app)
    clicks.add_routes(app)  # the page's click layer: its legal entries
    app.router.add_static("/static", HERE / "static", append_version=False)

    async def stop_streams(app: web.Application) -> None:
        await app[routes.WATCHERS].close()

    async def stop_orders(app: web.Application) -> None:
        # an order being stored finishes; those still waiting are dropped with their
        # requests, which the server's stop has ended
        orders.shutdown(wait=False, cancel_futures=True)

    app.on_shutdown.append(stop_streams)
    app.on_cleanup.append(stop_orders)
    return app


def runner_options() -> dict[str, Any]:
    """How an :class:`aiohttp.web.AppRunner` of the pages runs: the redacting access log
    (:class:`bot.web.security.AccessLogger`), and open streams given 2 s to end at stop."""
    return {"access_log_class": AccessLogger, "access_log": access, "shutdown_timeout": 2.0}


class WebServer:
    """The server on ``settings.host:settings.port`` inside the running loop."""

    def __init__(self, service: GameService, settings: WebSettings) -> None:
        self.settings = settings
        self.app = make_app(service, settings)
        self.runner: web.AppRunner | None = None
        self.port = settings.port

    async def start(self) -> int:
        """Start serving; the port it listens on (a free one when ``port`` is 0)."""
        self.runner = web.AppRunner(self.app, **runner_options())
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.settings.host, self.settings.port)
        await site.start()
        server: Any = site._server
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        log.info("web pages served", extra={"fields": {
            "host": self.settings.host, "port": self.port,
            "base_url": self.settings.base_url or "-"}})
        return self.port

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None


def parse_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``--web``), ``[::1]:8080`` for IPv6; :class:`ValueError` if not."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{value!r}: give HOST:PORT, e.g. 127.0.0.1:8080")
    return host.strip("[]") or "127.0.0.1", int(port)


class ThreadedWebServer:
    """The server in a thread of its own with its own event loop, for a process whose main
    loop is not asyncio (``umpire mail --web``)."""

    def __init__(self, service: GameService, settings: WebSettings) -> None:
        self.server = WebServer(service, settings)
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, name="umpire-web", daemon=True)
        self.error: BaseException | None = None

    def start(self, timeout: float = 30.0) -> int:
        """Start serving; the port (:class:`RuntimeError` if it could not start)."""
        self.thread.start()
        self.started.wait(timeout)
        if self.error is not None or not self.started.is_set():
            raise RuntimeError(f"the web server did not start: {self.error}")
        return self.server.port

    def stop(self, timeout: float = 5.0) -> None:
        if self.loop.is_running():
            asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(timeout)
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.server.start())
        except BaseException as error:  # told to start(), which raises it
            self.error = error
            self.started.set()
            return
        self.started.set()
        self.loop.run_forever()
        self.loop.close()


async def serve(service: GameService, settings: WebSettings, stop: asyncio.Event,
                started: Callable[[int], object] | None = None) -> None:
    """Serve until ``stop`` is set, with the settings of Umpire's long-running processes
    applied once started (:func:`bot.runtime.tune_gc`, as ``umpire bot`` and ``umpire
    mail`` do, which serve the pages too): without them, a collection of the whole heap
    (rules, packs, picture layers) now and then held an order's answer for tens of
    milliseconds (docs/performance.md, "The web page's update, round 5"). ``started`` is
    told the port once it listens and is tuned."""
    server = WebServer(service, settings)
    port = await server.start()
    tune_gc()
    if started is not None:
        started(port)
    try:
        await stop.wait()
    finally:
        await server.stop()


def run(service: GameService, settings: WebSettings) -> None:
    """Serve until SIGINT or SIGTERM (``umpire web``)."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(service, settings, stop)

    asyncio.run(main())
