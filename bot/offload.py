"""Pictures drawn off the bot's process: a bounded pool of warm worker processes.

Drawing a map and encoding its PNG is pure Python and Pillow for the most part; in a thread of
the bot it holds the interpreter's lock, and the event loop waits for it (issue 26: the
loop's lag p99 was 424 ms under a burst with the drawing in threads). In a worker process it
holds nothing of the bot's.

What crosses to a worker is one View's JSON (``View.model_dump_json``: only what that viewer
may know, never a state), the game's name, the pack's path and the zoom flag; the worker
rebuilds the View with the class the game's own ``view`` returns and draws it as the bot's
own process would (``draw``), byte for byte. A worker interns the unit views it rebuilds:
equal units are one object from one View to the next, as the service shares them, so the
picture's plan keeps each unchanged stack (``render.stalingrad.plan``).

The pool is ``spawn``ed (nothing of the bot's threads, sockets or store is inherited),
warmed at its start (every game's static layers, ``prepare_pictures``), bounded
(``processes`` workers) and first-in first-out; ``close`` stops it within a bound (a worker
still drawing after it is terminated: a picture takes milliseconds, not seconds).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import multiprocessing
import time
from collections.abc import Hashable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from adjudicator.kernel.events import PUBLIC
from adjudicator.kernel.views import View
from adjudicator.registry import available, load_game

log = logging.getLogger("umpire.pictures")

#: Seconds ``PicturePool.close`` waits for its workers before terminating them.
CLOSE_SECONDS = 2.0
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
    goes online, so the first picture a player waits for costs what every later one does."""
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
            prepare(game, None, rules.view(rules.setup(), PUBLIC))
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


# ---- in the bot's process -----------------------------------------------------------------

def payload(view: View) -> bytes:
    """What a worker receives of ``view``: its JSON, the viewer's own knowledge only."""
    return view.model_dump_json().encode()


class PicturePool:
    """A renderer drawing in ``processes`` warm worker processes (see the module docstring).
    Called as a renderer (``pool(view, pack, full=…)``) it waits for the picture in the
    caller's thread; :meth:`picture` awaits it on the event loop without a thread."""

    def __init__(self, processes: int, games: Sequence[str] = ()) -> None:
        self.processes = processes
        self.pool = ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_warm, initargs=(tuple(games or available()),))

    def submit(self, view: View, pack: Path | None = None, /, **options: bool
               ) -> Future[bytes]:
        return self.pool.submit(_draw_payload, view.game, payload(view),
                                str(pack) if pack is not None else None,
                                bool(options.get("full", False)))

    def __call__(self, view: View, pack: Path | None = None, /, **options: bool) -> bytes:
        return self.submit(view, pack, **options).result()

    async def picture(self, view: View, pack: Path | None = None, /, **options: bool
                      ) -> bytes:
        return await asyncio.wrap_future(self.submit(view, pack, **options))

    def warm(self, timeout: float = 120.0) -> None:
        """Wait until every worker has started and built its layers (the pool starts its
        workers as work arrives: one trivial task per worker starts them all)."""
        futures = [self.pool.submit(time.sleep, 0.05) for _ in range(self.processes)]
        for future in futures:
            future.result(timeout)

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Stop the workers: pictures not begun are cancelled; a worker still busy after
        ``timeout`` seconds is terminated."""
        workers = dict(getattr(self.pool, "_processes", None) or {})
        self.pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + timeout
        for pid, process in workers.items():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                log.warning("picture worker %s still busy after %.1f s: terminated", pid,
                            timeout)
                process.terminate()
                process.join(1.0)
