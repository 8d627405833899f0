"""Pictures drawn in a pool of worker processes (``umpire bot --render-processes``): the
same PNG as drawn in the bot's own process, made in another process, so a slow map never
holds the bot's event loop."""

from __future__ import annotations

import os

from adjudicator.kernel.events import PUBLIC
from adjudicator.registry import load_game
from bot.discord.app import PooledRenderer, draw, load_renderer


def test_pictures_are_drawn_in_worker_processes() -> None:
    rules = load_game("tanks")
    view = rules.view(rules.setup(), PUBLIC)
    pool = PooledRenderer(1, games=("tanks",))
    try:
        data = pool(view)
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        assert data == draw(view)
        assert pool.pool.submit(os.getpid).result() != os.getpid()
    finally:
        pool.close()
    pooled = load_renderer(2)
    assert isinstance(pooled, PooledRenderer)
    pooled.close()
    assert load_renderer(0) is draw
