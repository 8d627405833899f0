"""The long-running processes' garbage-collector settings (bot.runtime)."""

from __future__ import annotations

import gc
import sys

import pytest

from bot.runtime import SWITCH_SECONDS, YOUNG_THRESHOLD, tune_gc, tune_switching


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


def test_tune_switching_lets_the_loop_take_the_interpreter_back_within_a_millisecond() -> None:
    """The bot's event loop waits for a busy worker thread at most the switch interval
    each time it takes the interpreter back (issue 26): 1 ms, not Python's 5 ms."""
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        tune_switching()
        assert sys.getswitchinterval() == pytest.approx(SWITCH_SECONDS)
        assert SWITCH_SECONDS <= 0.001
    finally:
        sys.setswitchinterval(before)
