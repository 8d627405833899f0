"""Complete listings of legal orders made in worker processes (``bot.offload.ListingPool``,
issue 26 round 8): the bot's autocomplete searches ``Game.complete_orders``, the rules'
biggest read, which in the bot's threads held the interpreter lock while other games'
orders waited. The service makes the job after its own checks (``GameService(lister=…)``);
the listing a worker makes is the one the rules make in the service's process, and a
worker that fails never costs the player their listing.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bench.common import played
from bot import listing
from bot.offload import LISTING_NICENESS, ListingPool
from bot.service import Actor, GameService, PermissionDenied
from bot.store import Store

#: Generous: a worker spawns, imports the rules and lists a set-up on a shared machine.
SPAWN_S = 120.0


@pytest.fixture(scope="module")
def pool() -> Iterator[ListingPool]:
    workers = ListingPool(1, games=("stalingrad", "tanks"))
    workers.warm(SPAWN_S)
    yield workers
    workers.close()


class Recording:
    """A lister that records its jobs and lists in this process, as a worker would: from
    the state's JSON alone."""

    def __init__(self, service: GameService, fail: bool = False) -> None:
        self.service, self.fail = service, fail
        self.jobs: list[tuple[str, Path | None, bytes, str, str]] = []

    def submit(self, game: str, pack: Path | None, state: bytes, side: str,
               what: str = "orders") -> Future[list[Any]]:
        self.jobs.append((game, pack, state, side, what))
        made: Future[list[Any]] = Future()
        if self.fail:
            made.set_exception(BrokenProcessPool("a worker died"))
        else:
            rules = self.service.game_rules(game)
            loaded = rules.load_state(state)
            made.set_result(listing.entries(rules, loaded, side) if what == "entries"
                            else rules.complete_orders(loaded, side))
        return made


def positions(service: GameService, game: str, scenarios: list[str | None], actions: int,
              every: int) -> Iterator[tuple[str, Actor, str]]:
    """(game id, a player of the side to act, that side) every ``every`` random orders."""
    for number, (table, actor, text) in enumerate(played(service, game, scenarios, actions)):
        service.submit(table.game_id, actor, text, table.key())
        info = service.info(table.game_id)
        if number % every == every - 1 and info.status == "active" and info.to_act:
            yield table.game_id, table.players[info.to_act], info.to_act


@pytest.mark.parametrize(("game", "scenarios"), [
    ("stalingrad", ["historical"]),
    ("tanks", ["pakfront", "kursk-salient"]),
])
def test_a_workers_listing_is_the_rules_own(pool: ListingPool, tmp_path: Path, game: str,
                                            scenarios: list[str | None]) -> None:
    """The same orders in the same order, for random positions of both games (the state
    crosses as a snapshot keeps it: the rules iterate its dicts in their own order); the
    same entries as a person reads them (the web page's clicks, ``legal``)."""
    service = GameService(Store(tmp_path / "u.db"), lister=pool)
    compared = listed = 0
    for game_id, actor, side in positions(service, game, scenarios, 60, 6):
        made = service.complete_orders(game_id, actor).result(SPAWN_S)
        ctx = service._load(game_id)
        assert made == ctx.game.complete_orders(ctx.state, side)
        assert service.legal_entries(game_id, actor, side) == \
            listing.entries(ctx.game, ctx.state, side)
        compared += 1
        listed += len(made)
    assert compared >= 5 and listed > 0


def test_the_service_checks_before_it_hands_a_state_to_its_lister(tmp_path: Path) -> None:
    """The job is made after the permission check: a player asking for the other side is
    refused and nothing crosses; the job is the game, its pack, the state's JSON and the
    side asked for (what a snapshot keeps), and its listing is what the player gets."""
    service = GameService(Store(tmp_path / "u.db"))
    lister = service.lister = Recording(service)
    game_id, actor, side = next(positions(service, "stalingrad", ["historical"], 30, 10))
    other = next(s for s in service.game_rules("stalingrad").sides if s != side)
    with pytest.raises(PermissionDenied):
        service.complete_orders(game_id, actor, other)
    assert lister.jobs == []
    listed = service.legal_orders(game_id, actor, complete=True)
    ctx = service._load(game_id)
    assert lister.jobs == [("stalingrad", ctx.game.pack, ctx.state.to_json(), side, "orders")]
    assert listed == ctx.game.complete_orders(ctx.state, side) and listed
    assert service.legal_orders(game_id, actor) and len(lister.jobs) == 1  # a sample: here
    with pytest.raises(PermissionDenied):
        service.legal_entries(game_id, actor, other)
    assert len(lister.jobs) == 1
    entries = service.legal_entries(game_id, actor, side)
    assert lister.jobs[-1][-1] == "entries" and len(lister.jobs) == 2
    assert entries == listing.entries(ctx.game, ctx.state, side)


def test_a_listing_its_worker_cannot_make_is_made_in_the_service(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A worker that died (or a lister that cannot take the job) costs a warning for the
    operator, never the player's listing."""
    service = GameService(Store(tmp_path / "u.db"))
    service.lister = Recording(service, fail=True)
    game_id, actor, side = next(positions(service, "stalingrad", ["historical"], 30, 10))
    ctx = service._load(game_id)
    with caplog.at_level(logging.WARNING, logger="bot.service"):
        assert service.legal_orders(game_id, actor, complete=True) == \
            ctx.game.complete_orders(ctx.state, side)
    assert "the listing worker failed; listed in this process" in caplog.text

    class Closed:
        def submit(self, *job: Any) -> Future[list[str]]:
            raise RuntimeError("cannot schedule new futures after shutdown")

    service.lister = Closed()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bot.service"):
        assert service.complete_orders(game_id, actor).result() == \
            ctx.game.complete_orders(ctx.state, side)
    assert "no listing worker; listed in this process" in caplog.text


def test_a_pool_whose_worker_died_starts_again(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """A worker killed in the middle of its work (here it ends its own process) breaks
    the pool: that work fails, the next is done by new workers, and the log says so."""
    workers = ListingPool(1, games=("stalingrad",))
    try:
        with pytest.raises(BrokenProcessPool):
            workers._submit(os._exit, 1).result(SPAWN_S)
        service = GameService(Store(tmp_path / "u.db"), lister=workers)
        game_id, actor, side = next(positions(service, "stalingrad", ["historical"], 30, 10))
        ctx = service._load(game_id)
        with caplog.at_level(logging.WARNING, logger="umpire.workers"):
            made = service.complete_orders(game_id, actor).result(SPAWN_S)
        assert made == ctx.game.complete_orders(ctx.state, side)
        assert "a listing worker died: the listing workers start again" in caplog.text
    finally:
        workers.close()


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities here")
def test_a_listing_worker_yields_the_cores_to_the_bot(pool: ListingPool) -> None:
    """An autocomplete is a suggestion: its worker runs at a lower priority than the bot,
    so on a busy machine the orders and pictures players wait for go first."""
    mine = os.nice(0)
    assert pool._submit(os.nice, 0).result(SPAWN_S) == min(19, mine + LISTING_NICENESS)


class Pool:
    """A listing pool's life seen: made, started, closed (no process)."""

    made: ClassVar[list[Pool]] = []

    def __init__(self, processes: int) -> None:
        self.processes, self.started, self.closed = processes, False, False
        Pool.made.append(self)

    def start(self) -> None:
        self.started = True

    def close(self) -> None:
        self.closed = True


def test_umpire_web_lists_in_a_worker_unless_told_not_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``umpire web`` (the page fetches its side's entries after every action) hands its
    service a started listing pool by default, closes it when the server stops, and with
    ``--listing-processes 0`` lists in its own threads."""
    from typer.testing import CliRunner

    import bot.offload
    import bot.web.app as web_app
    from bot.cli import app

    made = Pool.made = []
    seen: list[Any] = []
    monkeypatch.setattr(bot.offload, "ListingPool", Pool)
    monkeypatch.setattr(web_app, "run", lambda service, settings: seen.append(service.lister))
    db = str(tmp_path / "u.db")
    result = CliRunner().invoke(app, ["web", "--db", db, "--port", "0"])
    assert result.exit_code == 0, result.output
    (pool,) = made
    assert seen == [pool] and pool.processes == 1 and pool.started and pool.closed
    result = CliRunner().invoke(app, ["web", "--db", db, "--port", "0",
                                      "--listing-processes", "0"])
    assert result.exit_code == 0, result.output
    assert seen[-1] is None and len(made) == 1


def test_the_mail_gateways_pages_list_in_a_worker(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``umpire mail --web`` serves the pages over the gateway's service: its listings are
    made in a worker as ``umpire web``'s are, started with the pages, closed at the stop."""
    import signal
    from types import SimpleNamespace

    import bot.mail.app as mail_app
    import bot.offload
    import bot.web.app as web_app
    from bot.web.settings import WebSettings

    made = Pool.made = []
    service = GameService(Store(tmp_path / "u.db"))
    gateway = SimpleNamespace(desk=SimpleNamespace(service=service), holder="mail:test",
                              inbox=None, run=lambda stop: None, interrupt=lambda: None)
    served: list[Any] = []

    class Pages:
        def __init__(self, service: GameService, settings: WebSettings) -> None:
            served.append(service.lister)

        def start(self) -> None:
            pass

        def stop(self) -> None:
            served.append("stopped")

    monkeypatch.setattr(mail_app, "build", lambda config, db: (gateway, None))
    monkeypatch.setattr(bot.offload, "ListingPool", Pool)
    monkeypatch.setattr(web_app, "ThreadedWebServer", Pages)
    monkeypatch.setattr(signal, "signal", lambda *args: None)
    mail_app.run(SimpleNamespace(), tmp_path / "u.db",  # type: ignore[arg-type]
                 WebSettings(port=8181))
    (pool,) = made
    assert served == [pool, "stopped"] and pool.started and pool.closed
