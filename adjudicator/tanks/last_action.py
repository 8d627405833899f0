"""What the last order did, for the map picture: kept in the state, shown in each View.

The record (a kernel :class:`~adjudicator.kernel.last_action.ActionRecord`) holds up to three
entries, each with the audience of the event it was made from:

* ``move``: the unit that moved and its path, start hex first;
* ``shot``: fire or a close assault — the firers' hexes, the target's, whether it hit and
  what it did (``text``: "HIT - destroyed", "MISS", "assault: no effect");
* ``barrage``: the target hex, where the barrage scattered to, the hexes it fell on.

An order that did none of these (a ``done`` that only ends a phase) leaves the previous
record in place. Stored as ``{"move": {...}, "shot": {...}}`` with absent entries left out,
the shape states have always had, so every stored state keeps its hash.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from adjudicator.kernel.events import Event
from adjudicator.kernel.last_action import ActionRecord, Entry


class MoveEntry(Entry):
    unit: str | None = None
    path: list[str]


class ShotEntry(Entry):
    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    from_: list[str] = Field(alias="from")  # the firers' hexes
    to: str
    hit: bool
    destroyed: bool
    disrupted: bool
    text: str
    firers: list[str | None] = Field(default_factory=list)
    target: str | None = None
    mode: str | None = None


class BarrageEntry(Entry):
    target: str | None = None
    scatter_to: str | None = None
    hexes: list[str] = Field(default_factory=list)


class LastAction(ActionRecord):
    """The last order's move, shot and barrage, as far as a viewer may know them."""

    move: MoveEntry | None = None
    shot: ShotEntry | None = None
    barrage: BarrageEntry | None = None

    @model_serializer(mode="wrap")
    def _present_entries_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {name: value for name, value in data.items() if value is not None}

    def hexes(self) -> set[str]:
        """Every hex the action touched."""
        out: set[str] = set()
        if self.move is not None:
            out |= set(self.move.path)
        if self.shot is not None:
            out |= {*self.shot.from_, self.shot.to}
        if self.barrage is not None:
            out |= set(self.barrage.hexes)
            out |= {h for h in (self.barrage.target, self.barrage.scatter_to) if h}
        return out


def shot_text(destroyed: bool, disrupted: bool, hit: bool) -> str:
    if destroyed:
        return "HIT - destroyed"
    if disrupted:
        return "HIT - disrupted"
    return "HIT - no effect" if hit else "MISS"


def fold(events: Iterable[Event]) -> LastAction:
    """The record of one order, from its events (empty when the order did none of these
    things)."""
    record = LastAction()
    for event in events:
        data = event.data
        if event.kind == "move" and data.get("hexes"):
            record.move = MoveEntry(unit=data.get("unit"), path=list(data["hexes"]),
                                    audience=event.audience)
        elif event.kind == "fire" and data.get("target_hex"):
            hit = bool(data.get("hit"))
            destroyed, disrupted = bool(data.get("destroyed")), bool(data.get("disrupted"))
            record.shot = ShotEntry(
                from_=[h for h in data.get("firer_hexes", []) if h], to=data["target_hex"],
                hit=hit, destroyed=destroyed, disrupted=disrupted,
                text=shot_text(destroyed, disrupted, hit), firers=list(data.get("firers", [])),
                target=data.get("target"), mode=data.get("mode"), audience=event.audience)
        elif event.kind == "assault" and data.get("target_hex"):
            destroyed = bool(data.get("destroyed"))
            record.shot = ShotEntry(
                from_=[data["unit_hex"]] if data.get("unit_hex") else [], to=data["target_hex"],
                hit=destroyed, destroyed=destroyed, disrupted=False,
                text="assault: " + ("destroyed" if destroyed else "no effect"),
                firers=[data.get("unit")], target=data.get("target"),
                mode="suicide" if data.get("suicide") else "assault", audience=event.audience)
        elif event.kind == "barrage-marker" and data.get("hex"):
            record.barrage = BarrageEntry(target=data["hex"], audience=event.audience)
        elif event.kind == "scatter" and data.get("hex"):
            record.barrage = BarrageEntry(target=data.get("marker"), scatter_to=data["hex"],
                                          audience=event.audience)
        elif event.kind == "barrage" and data.get("hex"):
            scattered = data.get("marker") != data["hex"]
            record.barrage = BarrageEntry(target=data.get("marker") or data["hex"],
                                          scatter_to=data["hex"] if scattered else None,
                                          hexes=list(data.get("hexes", [])),
                                          audience=event.audience)
    return record


def for_viewer(record: LastAction, viewer: str, marker: dict[str, Any] | None
               ) -> LastAction | None:
    """What ``viewer`` may know of the record (None: nothing). A target marker stays on the
    map until its barrage falls (18.1): while it is there the barrage entry shows it,
    whatever the last action was (the marker is public)."""
    seen = record.for_viewer(viewer)
    if marker is not None and seen.barrage is None:
        seen.barrage = BarrageEntry(target=marker["hex"])
    return None if seen.is_empty() else seen
