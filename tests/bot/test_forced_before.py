"""A rollback tells the GM's forced dice waiting at its target from those waiting now and
the actions it reverts (``forced_before``), without reading the log before the target; it
agrees with reading the whole log (``forced_queue``) whenever it can tell."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.history import forced_before, forced_queue


def row(kind: str, forced: int = 0, values: tuple[int, ...] = ()) -> dict[str, Any]:
    rolls = [{"values": [3, 4], "forced": list(range(forced))}] if forced else []
    payload = ({"op": {"op": "force-dice", "values": list(values)}, "reason": "gm"}
               if kind == "gm-override" else None)
    return {"kind": kind, "rolls": json.dumps(rolls),
            "payload": json.dumps(payload) if payload else None}


rows = st.lists(st.one_of(
    st.builds(row, st.just("order")),
    st.builds(row, st.just("order"), st.integers(1, 2)),
    st.builds(row, st.just("gm-override"), st.just(0),
              st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple)),
), max_size=12)


def consistent(log: list[dict[str, Any]]) -> bool:
    """No die is forced unless the GM forced one before (as the service guarantees)."""
    waiting = 0
    for item in log:
        for roll in json.loads(item["rolls"]):
            waiting -= len(roll["forced"])
            if waiting < 0:
                return False
        payload = json.loads(item["payload"]) if item["payload"] else None
        if payload:
            waiting += len(payload["op"]["values"])
    return True


@given(rows, st.integers(0, 12))
def test_the_queue_before_agrees_with_the_whole_log(log: list[dict[str, Any]], cut: int) -> None:
    if not consistent(log):
        return
    cut = min(cut, len(log))
    told = forced_before(forced_queue(log), log[cut:])
    if told is not None:
        assert told == forced_queue(log[:cut])
    if not any(json.loads(item["rolls"]) for item in log[cut:]):
        assert told is not None  # no die forced after the cut: always told


def test_overrides_after_the_target_are_dropped() -> None:
    log = [row("gm-override", values=(6,)), row("order"), row("gm-override", values=(1, 2))]
    assert forced_before(forced_queue(log), log[1:]) == [{"value": 6, "reason": "gm"}]
    assert forced_before(forced_queue(log), log[2:]) == [{"value": 6, "reason": "gm"}]
    assert forced_before(forced_queue(log), log[:0]) == forced_queue(log)
