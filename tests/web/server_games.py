"""What the web server's tests share: a service over a fresh database with a Stalin's Tanks
Pakfront game (GM, german, soviet), its links, and the application on aiohttp's test
server (a real loopback port)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bot.service import Actor, GameService
from bot.store import Store
from bot.web.app import make_app, runner_options
from bot.web.settings import WebSettings

GM = Actor.discord("100")
GERMAN = Actor.discord("201")
SOVIET = Actor.mail("sasha@example.org")
#: The German hidden set-up's units (25.2) and where they go: never in the Soviet's JSON.
HIDDEN = {"pak75-1": "0101", "pak75-2": "0102", "flak88-1": "0103"}
PLACED = ["flak88-2", "pak88-1", "pak88-2", *(f"infde-{n}" for n in range(1, 10))]


@dataclass
class Game:
    service: GameService
    game_id: str
    german: str
    soviet: str
    gm: str
    observer: str
    gm_actor: Actor = GM


def pakfront(db: Path | str) -> Game:
    """A started Pakfront game (german sets up hidden first) and a link per seat."""
    service = GameService(Store(db))
    game_id = service.create_game(GM, "tanks", "pakfront").id
    service.seat(game_id, GM, "german", GERMAN)
    service.seat(game_id, GM, "soviet", SOVIET)
    service.start(game_id, GM)
    return Game(service, game_id,
                german=service.issue_link(game_id, GERMAN).token,
                soviet=service.issue_link(game_id, SOVIET).token,
                gm=service.issue_link(game_id, GM).token,
                observer=service.observer_link(game_id, GM).token)


def hidden_setup_lines() -> list[str]:
    return [*(f"hide {unit} {where}" for unit, where in HIDDEN.items()),
            *(f"place {unit} 01{n:02d}" for n, unit in enumerate(PLACED, start=4)), "done"]


@asynccontextmanager
async def serving(service: GameService, **settings: Any) -> AsyncIterator[TestClient[Any, Any]]:
    """The application over ``service`` on a loopback port, and a client of it."""
    app = make_app(service, WebSettings(**{"poll": 0.02, "keepalive": 1.0, **settings}))
    server = TestServer(app)
    await server.start_server(**runner_options())  # the redacting access log, as served
    async with TestClient(server) as client:
        yield client
