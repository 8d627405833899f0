"""Caches keyed by the objects a value was made from hold those objects (no stale hit)."""

from __future__ import annotations

import gc

from adjudicator.kernel.memo import Memo


class Map:
    def __init__(self, name: str) -> None:
        self.name = name


def test_a_value_made_from_a_freed_object_never_serves_a_new_one() -> None:
    memo = Memo[str](size=8)
    first = Map("old")
    assert memo.get((first,), "k", lambda: first.name) == "old"
    assert memo.get((first,), "k", lambda: "again") == "old"  # a hit: the same object
    # The memo holds the object: its id cannot be taken by another while it is kept, and an
    # equal id with another object (as after a reload) is a miss, never the old value.
    fresh = [Map(f"new{i}") for i in range(200)]
    gc.collect()
    for m in fresh:
        assert memo.get((m,), "k", lambda m=m: m.name) == m.name  # type: ignore[misc]
    assert memo.get((first,), "other", lambda: "made") == "made"  # the extra key counts


def test_the_memo_keeps_at_most_its_size() -> None:
    memo = Memo[int](size=4)
    keep = [Map(str(i)) for i in range(10)]
    for i, m in enumerate(keep):
        memo.get((m,), None, lambda i=i: i)  # type: ignore[misc]
    assert len(memo) <= 4
