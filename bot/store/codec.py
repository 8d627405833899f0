"""Compact stored forms: snapshots' states and idempotency results.

A snapshot's state is kept as its JSON (in its own key order), zlib-compressed.

A Turning Point: Stalingrad state is ~38 KB of JSON and ~4 KB compressed (0.25 ms to
compress, 0.03 ms to decompress). Stores written before compression hold the JSON itself;
it starts with ``{``, which a zlib stream never does (its first byte is 0x78), so both read
back the same: no migration rewrites old snapshots.

An idempotency row keeps the result's sequence numbers and outcome (:func:`compact_result`),
about a hundred bytes, not every audience's messages; schema 6 compacts the rows of older
stores (:func:`compacted`).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import Any

#: zlib's level: about as small as it gets on these states for a quarter of a millisecond.
LEVEL = 6


def pack_state(data: bytes) -> bytes:
    """The stored form of a state's JSON."""
    return zlib.compress(data, LEVEL)


def unpack_state(stored: bytes) -> bytes:
    """The JSON of a stored state (compressed, or JSON as older stores kept it)."""
    if stored[:1] == b"{":
        return stored
    try:
        return zlib.decompress(stored)
    except zlib.error as error:
        raise ValueError(f"a stored state is neither JSON nor compressed JSON ({error})"
                         ) from error


#: What an idempotency row keeps of a result (beside the request's digest, in its own
#: column): the outcome and the actions' sequence numbers. What was applied and what each
#: audience was told is read back from those actions when the key is used again.
RESULT_FIELDS = ("status", "side", "seqs", "error", "error_rule", "legal", "stopped_at",
                 "to_act", "pending_side")
#: The ``v`` of a compact result (older stores kept the whole result, messages and all).
COMPACT = 2


def compact_result(result: Mapping[str, Any], over: str | None = None) -> str:
    """The stored form of a submission's result (``over``: the game's result, when the
    submission ended it)."""
    kept: dict[str, Any] = {"v": COMPACT}
    for name in RESULT_FIELDS:
        value = result.get(name)
        if value not in (None, [], ""):
            kept[name] = value
    if over is not None:
        kept["over"] = over
    return json.dumps(kept, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def compacted(stored: str) -> str:
    """An idempotency row's result in the compact form, whichever form it was stored in
    (what is not a submission's result is left as it is)."""
    data = json.loads(stored)
    if not isinstance(data, dict) or data.get("v") == COMPACT or "status" not in data:
        return stored
    told = [m.get("result") for m in (data.get("messages") or {}).values()]
    return compact_result(data, next((r for r in told if r), None))
