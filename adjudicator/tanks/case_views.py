"""Conformance checks of what one side sees: a unit visible, concealed or absent in a View.

A case states ``sees = { side = "soviet", visible = [...], concealed = [...], absent =
[...] }`` (docs/conformance.md). The check reads the side's View, never the state, so it
fails exactly when a hidden unit (20.0) or a face-down identity (25.7) reaches that side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.tanks.state import TanksState
from adjudicator.tanks.views import TanksView

#: How a unit may appear in a side's View.
SEEN_AS = ("visible", "concealed", "absent")


def _ids(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def check_sees(state: TanksState, view: TanksView, wanted: Mapping[str, Any]) -> list[str]:
    """Failures of one ``sees`` table against ``view`` (the View of ``wanted['side']``)."""
    unknown = set(wanted) - {"side", *SEEN_AS}
    if unknown:
        return [f"sees: unknown keys {sorted(unknown)}; use side and {', '.join(SEEN_AS)}"]
    side = str(wanted.get("side", ""))
    text = view.model_dump_json()
    failures: list[str] = []
    for how in SEEN_AS:
        for unit_id in _ids(wanted.get(how, [])):
            unit = state.unit(unit_id)
            if unit is None:
                failures.append(f"sees: no unit {unit_id!r} in the game")
                continue
            shown = next((u for u in view.units if u.id == unit.id), None)
            named = f'"{unit.id}"' in text
            stand_in = unit.hex is not None and any(
                u.concealed and u.id != unit.id and u.side == unit.side and u.hex == unit.hex
                for u in view.units)
            if shown is not None:
                seen = "visible"  # listed under its own id: its identity is known
            elif named:
                seen = "named elsewhere in the view"
            else:
                seen = "concealed" if stand_in else "absent"
            if seen != how:
                failures.append(f"{side} sees {unit.id}: expected {how}, got {seen}")
    return failures
