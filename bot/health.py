"""Health of Umpire's long-running processes, kept in the store so that ``umpire status``,
run as another process (or on another machine sharing a PostgreSQL store), can read it.

Each process keeps one record, the ``meta`` row ``health:<kind>:<instance>`` (``kind``:
``discord``, ``mail``; ``instance``: the process's lease holder name), a JSON object of
what it last did, with times in seconds since the epoch: ``connected``, ``started``,
``last_interaction``, ``last_tick``, ``last_error`` (with ``last_error_at``), ``stopped``;
any other field a process records (the gateway's ``last_poll``, ``queue``, …) is shown by
``umpire status`` too, a ``last_…`` number as a time.
The leases a process holds are read from the ``leases`` table, not copied here.
"""

from __future__ import annotations

import json
import time
from typing import Any

from bot.store import Store

PREFIX = "health:"


def key(kind: str, instance: str) -> str:
    return f"{PREFIX}{kind}:{instance}"


def record(store: Store, kind: str, instance: str, **changes: Any) -> None:
    """Merge ``changes`` into the process's record (``updated``: now)."""
    name = key(kind, instance)
    raw = store.get_meta(name)
    current: dict[str, Any] = json.loads(raw) if raw else {
        "kind": kind, "instance": instance, "started": time.time()}
    current.update(changes, updated=time.time())
    store.set_meta(name, json.dumps(current, sort_keys=True))


def records(store: Store) -> list[dict[str, Any]]:
    """Every process's record, the leases it holds now added (``leases``), newest first."""
    rows = store.query("SELECT key, value FROM meta WHERE key LIKE ?", [PREFIX + "%"])
    leases = store.query("SELECT name, holder, expires FROM leases")
    now = time.time()
    found = []
    for row in rows:
        try:
            item = json.loads(str(row["value"]))
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        item["leases"] = sorted(str(lease["name"]) for lease in leases
                                if lease["holder"] == item.get("instance")
                                and float(lease["expires"]) >= now)
        found.append(item)
    return sorted(found, key=lambda item: -float(item.get("updated") or 0))


def _when(value: Any, now: float) -> str:
    if not value:
        return "never"
    seconds = max(0, round(now - float(value)))
    stamp = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(float(value)))
    return f"{stamp} ({seconds} s ago)"


def describe(item: dict[str, Any], now: float | None = None) -> list[str]:
    """The lines ``umpire status`` prints for one process."""
    now = time.time() if now is None else now
    state = ("stopped " + _when(item["stopped"], now) if item.get("stopped")
             else "connected" if item.get("connected") else "not connected")
    lines = [f"{item.get('kind', '?')} {item.get('instance', '?')}: {state}",
             f"  last interaction: {_when(item.get('last_interaction'), now)}",
             f"  last deadline tick: {_when(item.get('last_tick'), now)}",
             f"  leases held: {', '.join(item.get('leases', [])) or 'none'}"]
    error = item.get("last_error")
    lines.append(f"  last error: {error} at {_when(item.get('last_error_at'), now)}"
                 if error else "  last error: none")
    for name in sorted(set(item) - _SHOWN):  # what another kind of process records
        value = item[name]
        shown = _when(value, now) if name.startswith("last_") and isinstance(
            value, int | float) else value
        lines.append(f"  {name.replace('_', ' ')}: {shown}")
    return lines


#: The fields :func:`describe` shows on its own lines, or not at all.
_SHOWN = {"kind", "instance", "connected", "started", "stopped", "updated", "leases",
          "last_interaction", "last_tick", "last_error", "last_error_at"}
