"""Work drawn off the bot's process: bounded pools of warm worker processes, one for the
pictures, one for the complete listings of legal orders.

Drawing a map and encoding its PNG is pure Python and Pillow for the most part; in a thread of
the bot it holds the interpreter's lock, and the event loop waits for it (issue 26: the
loop's lag p99 was 424 ms under a burst with the drawing in threads). In a worker process it
holds nothing of the bot's. The same holds for the listing that ``/order``'s autocomplete
searches (``Game.complete_orders``: every legal order written out, some 3,600 in a busy TP:S
position, tens of milliseconds of the rules' Python): in the bot's threads it took the lock
from the orders of every other game (issue 26, round 8).

What crosses to a picture worker is one View's JSON (``View.model_dump_json``: only what that
viewer may know, never a state), the game's name, the pack's path and the zoom flag; the
worker rebuilds the View with the class the game's own ``view`` returns and draws it as the
bot's own process would (``draw``), byte for byte. A worker interns the unit views it
rebuilds: equal units are one object from one View to the next, as the service shares them,
so the picture's plan keeps each unchanged stack (``render.stalingrad.plan``).

What crosses to a listing worker is what the rules need and nothing else: the game's name,
its pack's path, the state's JSON as a snapshot keeps it (``GameState.to_json``: dicts in
their own order, which the rules iterate), the side and what to list; back comes the list
of order texts that side may give (autocomplete's), or those orders read for a person
(``bot.listing.entries``: what the web page clicks after every action). The service makes
the job after its own permission checks (``GameService(lister=…)``); no frontend ever holds
the state, and pictures never see one.

Each pool is ``spawn``ed (nothing of the bot's threads, sockets or store is inherited),
warmed at its start (a picture worker builds every game's static layers,
``prepare_pictures``; a listing worker loads every game's rules and lists a set-up once,
and lowers its own priority: ``LISTING_NICENESS``),
bounded (``processes`` workers) and first-in first-out; ``close`` stops it within a bound (a
worker still busy after it is terminated: a picture or a listing takes milliseconds, not
seconds).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar, get_args

from adjudicator.kernel.events import PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.views import View
from adjudicator.registry import available, load_game
from bot import listing

log = logging.getLogger("umpire.workers")
T = TypeVar("T")

#: Seconds a pool's ``close`` waits for its workers before terminating them.
CLOSE_SECONDS = 2.0
#: How much lower a listing worker's priority is than the bot's (Unix ``nice``): an
#: autocomplete is a suggestion, and on a busy machine it yields the cores to the orders
#: and pictures players wait for (its answer has Discord's 3 seconds).
LISTING_NICENESS = 10
#: Unit views a worker keeps interned per game before it starts afresh.
INTERNED = 4096


def draw(view: View, pack: Path | None = None, /, **options: bool) -> bytes:
    """One picture of ``view`` (in this process): the zoom on the last action the bot
    posts, or with ``full=True`` the whole map (issue 29)."""
    module = importlib.import_module("render")
    crop = not options.get("full", False)
    data = module.render(view, module.load_pack(view.game, pack), crop=crop)
    assert isinstance(data, bytes)
    return data


def prepare_pictures(games: Sequence[str]) -> None:
    """Build the static picture layers of ``games`` (their shipped packs) before the bot
    goes online, and draw each scenario's set-up (its zones, faces and texts), so the first
    picture a player waits for costs what every later one does."""
    try:
        module = importlib.import_module("render")
    except ImportError:
        return
    prepare = getattr(module, "prepare", None)
    if not callable(prepare):
        return
    for game in games:
        try:
            rules = load_game(game)
            prepare(game, None, *(rules.view(rules.setup(scenario), PUBLIC)
                                   for scenario in rules.scenarios() or [None]))
        except Exception:  # a broken pack shows when its game is played; the bot still runs
            log.exception("no picture layers for %s", game)


# ---- in a worker process ------------------------------------------------------------------

_VIEW_TYPES: dict[str, type[View]] = {}
_INTERNED: dict[str, dict[Hashable, Any]] = {}


def _warm(games: Sequence[str]) -> None:
    logging.getLogger().setLevel(logging.WARNING)
    prepare_pictures(games)


def _view_type(game: str) -> type[View]:
    """The class of ``game``'s Views (the one its rules' ``view`` returns)."""
    found = _VIEW_TYPES.get(game)
    if found is None:
        rules = load_game(game)
        found = _VIEW_TYPES[game] = type(rules.view(rules.setup(), PUBLIC))
    return found


def _interned(game: str, view: View) -> View:
    """``view`` with each unit view equal to one already rebuilt replaced by that one."""
    units = getattr(view, "units", None)
    if not isinstance(units, list):
        return view
    kept = _INTERNED.setdefault(game, {})
    if len(kept) > INTERNED:
        kept.clear()
    shared = []
    for unit in units:
        key = (type(unit), *unit.__dict__.values())
        try:
            shared.append(kept.setdefault(key, unit))
        except TypeError:  # a field that cannot be a key: the unit stays as rebuilt
            shared.append(unit)
    units[:] = shared
    return view


def _draw_payload(game: str, payload: bytes, pack: str | None, full: bool) -> bytes:
    view = _interned(game, _view_type(game).model_validate_json(payload))
    return draw(view, Path(pack) if pack is not None else None, full=full)


_RULES: dict[tuple[str, str | None], Game[Any]] = {}


def _rules(game: str, pack: str | None) -> Game[Any]:
    """``game``'s rules bound to ``pack``, loaded once per worker."""
    found = _RULES.get((game, pack))
    if found is None:
        found = _RULES[(game, pack)] = load_game(game, Path(pack) if pack else None)
    return found


def _warm_rules(games: Sequence[str]) -> None:
    """Load each game's rules and list a set-up's orders once: what a first listing would
    otherwise pay (the packs, the order specs, the rules' lazy tables)."""
    logging.getLogger().setLevel(logging.WARNING)
    if hasattr(os, "nice"):
        os.nice(LISTING_NICENESS)
    for game in games:
        try:
            rules = _rules(game, None)
            state = rules.setup()
            for side in rules.sides:
                for what in get_args(listing.Made):
                    listing.made(what, rules, state, side)
        except Exception:  # a game that cannot list is listed in the bot's threads
            log.exception("no warm listing for %s", game)


def _listing(game: str, pack: str | None, state: bytes, side: str, what: listing.Made
             ) -> list[Any]:
    rules = _rules(game, pack)
    return listing.made(what, rules, rules.load_state(state), side)


# ---- in the bot's process -----------------------------------------------------------------

def payload(view: View) -> bytes:
    """What a worker receives of ``view``: its JSON, the viewer's own knowledge only."""
    return view.model_dump_json().encode()


class WorkerPool:
    """``processes`` warm worker processes, spawned, each started by ``warm_with(games)``
    (see the module docstring); ``what`` names their work in the log."""

    what = "worker"

    def __init__(self, processes: int, warm_with: Callable[[Sequence[str]], None],
                 games: Sequence[str] = ()) -> None:
        self.processes = processes
        self._start = (warm_with, tuple(games or available()))
        self.pool = self._spawn()

    def _spawn(self) -> ProcessPoolExecutor:
        warm_with, games = self._start
        return ProcessPoolExecutor(
            max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=warm_with, initargs=(games,))

    def _submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        """``fn(*args)`` in a worker. A pool broken by a worker that died (killed, out of
        memory) is replaced by a new one, once per call: the work in hand when it died
        failed with it, the work after it runs."""
        try:
            return self.pool.submit(fn, *args)
        except BrokenProcessPool:
            log.warning("a %s died: the %ss start again", self.what, self.what)
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._spawn()
            return self.pool.submit(fn, *args)

    def start(self) -> list[Future[None]]:
        """Start every worker now, without waiting for them (the pool starts its workers as
        work arrives: one trivial task per worker starts them all)."""
        return [self._submit(time.sleep, 0.05) for _ in range(self.processes)]

    def warm(self, timeout: float = 120.0) -> None:
        """Wait until every worker has started and warmed."""
        for future in self.start():
            future.result(timeout)

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Stop the workers: work not begun is cancelled; a worker still busy after
        ``timeout`` seconds is terminated."""
        workers = dict(getattr(self.pool, "_processes", None) or {})
        self.pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + timeout
        for pid, process in workers.items():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                log.warning("%s %s still busy after %.1f s: terminated", self.what, pid,
                            timeout)
                process.terminate()
                process.join(1.0)


class PicturePool(WorkerPool):
    """A renderer drawing in ``processes`` warm worker processes (see the module docstring).
    Called as a renderer (``pool(view, pack, full=…)``) it waits for the picture in the
    caller's thread; :meth:`picture` awaits it on the event loop without a thread."""

    what = "picture worker"

    def __init__(self, processes: int, games: Sequence[str] = ()) -> None:
        super().__init__(processes, _warm, games)

    def submit(self, view: View, pack: Path | None = None, /, **options: bool
               ) -> Future[bytes]:
        return self._submit(_draw_payload, view.game, payload(view),
                            str(pack) if pack is not None else None,
                            bool(options.get("full", False)))

    def __call__(self, view: View, pack: Path | None = None, /, **options: bool) -> bytes:
        return self.submit(view, pack, **options).result()

    async def picture(self, view: View, pack: Path | None = None, /, **options: bool
                      ) -> bytes:
        return await asyncio.wrap_future(self.submit(view, pack, **options))


class ListingPool(WorkerPool):
    """The service's lister (``GameService(lister=…)``): complete listings of legal orders
    made in ``processes`` warm worker processes (see the module docstring)."""

    what = "listing worker"

    def __init__(self, processes: int = 1, games: Sequence[str] = ()) -> None:
        super().__init__(processes, _warm_rules, games)

    def submit(self, game: str, pack: Path | None, state: bytes, side: str,
               what: listing.Made = "orders") -> Future[list[Any]]:
        return self._submit(_listing, game, str(pack) if pack is not None else None,
                            state, side, what)
