"""The long-running processes' garbage-collector settings (bot.runtime)."""

from __future__ import annotations

import gc

from bot.runtime import YOUNG_THRESHOLD, tune_gc


def test_tune_gc_freezes_start_up_and_collects_the_young_less_often() -> None:
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.get_threshold()[1:] == before[1:]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
