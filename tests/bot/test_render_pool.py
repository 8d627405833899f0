"""Pictures drawn in a pool of worker processes (``umpire bot --render-processes``,
``bot.offload``): the same PNG as drawn in the bot's own process, made in another process
from the one View's JSON, so a slow map never holds the bot's event loop (issue 26)."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.events import PUBLIC
from adjudicator.registry import load_game
from adjudicator.tanks.game import TanksGame
from bot.discord.app import PooledRenderer, draw, load_renderer
from bot.offload import payload
from tests.tanks.test_secrets import HIDDEN_A, pakfront_setup, secrets_of


def test_pictures_are_drawn_in_worker_processes() -> None:
    rules = load_game("tanks")
    view = rules.view(rules.setup(), PUBLIC)
    pool = PooledRenderer(1, games=("tanks",))
    try:
        data = pool(view)
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        assert data == draw(view)
        assert asyncio.run(pool.picture(view, full=True)) == draw(view, full=True)
        assert pool.pool.submit(os.getpid).result() != os.getpid()
    finally:
        pool.close()
    pooled = load_renderer(2)
    assert isinstance(pooled, PooledRenderer)
    pooled.close()
    assert load_renderer(0) is draw


def test_a_worker_gets_the_seats_view_alone_and_draws_it_as_the_bot_would_20_0() -> None:
    """What crosses to a worker is one View's JSON: hidden units (20.0) of the other side
    never reach the worker drawing the public or the Soviet picture; the German player's own
    picture shows them, drawn exactly as in the bot's process."""
    game = TanksGame()
    state = game.setup("pakfront")
    for line in pakfront_setup(HIDDEN_A):
        state = game.apply_text(state, "german", line, FixedDice([7] * 16)).state
    ids, hexes, _mines = secrets_of(state)
    assert ids and hexes
    pool = PooledRenderer(1, games=("tanks",))
    sent: list[tuple[Any, ...]] = []
    submit = pool.pool.submit

    def recorded(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        sent.append(args)
        return submit(fn, *args, **kwargs)

    pool.pool.submit = recorded  # type: ignore[method-assign]
    try:
        for viewer in (PUBLIC, "soviet", "german"):
            view = game.view(state, viewer)
            assert pool(view) == draw(view)
            assert sent[-1][1] == payload(view) == view.model_dump_json().encode()
            text = sent[-1][1].decode()
            shown = {unit for unit in ids if f'"{unit}"' in text}
            assert shown == (ids if viewer == "german" else set()), viewer
    finally:
        pool.close()


def test_a_worker_draws_the_tps_zoom_as_the_bot_would() -> None:
    rules = load_game("stalingrad")
    view = rules.view(rules.setup(), PUBLIC)
    pool = PooledRenderer(1, games=("stalingrad",))
    try:
        assert pool(view) == draw(view)
        assert pool(view) == draw(view)  # again, from units interned in the worker
        assert pool(view, full=True) == draw(view, full=True)
    finally:
        pool.close()
