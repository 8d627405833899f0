"""The last action: a record kept in the state, shown in each viewer's View, drawn on the map.

Each game folds the events of its orders into a record of what the last action did (a
Turning Point: Stalingrad impulse's moves, attacks, retreats and crossings; a Stalin's
Tanks order's move, shot or barrage). The record is a :class:`ActionRecord` whose entries
are :class:`Entry` models, each keeping the audience of the event it was made from, so
:meth:`ActionRecord.for_viewer` gives a viewer exactly the entries it may see. Views carry
the record for their viewer; pictures and messages read it from the View, never from the
state or from events.

>>> class Shot(Entry):
...     target: str
>>> class Record(ActionRecord):
...     shots: list[Shot] = entry_list()
>>> record = Record(shots=[Shot(target="1203"), Shot(target="0907", audience="german")])
>>> [shot.target for shot in record.for_viewer("soviet").shots]
['1203']
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.events import PUBLIC, may_see
from adjudicator.kernel.state import copy_model


class Entry(BaseModel):
    """One thing the last action did, and who may know it (``public``, a side, ``gm``)."""

    model_config = ConfigDict(extra="forbid")

    audience: str = PUBLIC


def entry_list() -> Any:
    """A record's field holding a list of entries, empty until the action adds some (each
    record its own list)."""
    return Field(default_factory=list)


class ActionRecord(BaseModel):
    """A game's last-action record: its entries are the fields holding an :class:`Entry` or
    a list of them; every other field (whose impulse, which date) is public."""

    model_config = ConfigDict(extra="forbid")

    def entries(self) -> Iterator[Entry]:
        """Every entry of the record, field by field."""
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, Entry):
                yield value
            elif isinstance(value, list):
                yield from (item for item in value if isinstance(item, Entry))

    def audiences_seen_by(self, viewer: str) -> frozenset[str]:
        """The audiences of the entries ``viewer`` may see: viewers with the same set are
        shown the same record by :meth:`for_viewer` (a view cache key)."""
        return frozenset(entry.audience for entry in self.entries()
                         if may_see(entry.audience, viewer))

    def for_viewer(self, viewer: str) -> Self:
        """A copy holding only the entries ``viewer`` may see (a single entry it may not see
        becomes None). The entries are deep copies (:func:`copy_model`: JSON-like data
        copied directly, as ``model_copy(deep=True)`` copies it, at a fraction of its cost)."""
        update: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, Entry):
                update[name] = copy_model(value) if may_see(value.audience, viewer) else None
            elif isinstance(value, list):
                update[name] = [
                    copy_model(item) if isinstance(item, BaseModel) else item
                    for item in value
                    if not isinstance(item, Entry) or may_see(item.audience, viewer)]
        return self.model_copy(update=update)

    def is_empty(self) -> bool:
        """Whether the record holds no entry."""
        return next(self.entries(), None) is None
