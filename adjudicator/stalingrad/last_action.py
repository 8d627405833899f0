"""What the last impulse did: kept in the state, shown in each viewer's View.

The record starts when a side's impulse starts (its first order, or its Pass) and grows with
every order of that impulse, the other side's decisions during it included (casualties,
retreats, the Advantage); it stays in place after the impulse ends, until the next impulse
starts. It is folded from each order's events (:func:`fold`), so it says exactly what the
rules did:

* ``moves``: each unit's full path this impulse — the Area (or Zone, or ``offboard`` /
  ``east``) it started from, every Area or Zone it entered, the last one — with how it went
  (``move``, ``regroup``, ``land``, ``infiltrate``);
* ``attacks``: the attacked Area and Group, the attackers (and the Areas Ranged fire came
  from), the odds before the dice, the totals after them, the Casualty Points and the result
  (``cp``, ``overrun``, ``equal``, ``repulsed``) with its text, e.g. "15:12 — 3 CP";
* ``retreats``: retreating (or Routed) units with their path, Area by Area;
* ``crossings``: Volga crossings and recrossings with their outcome;
* ``eliminated``: the units eliminated during the impulse.

Every entry keeps the audience of the event it was made from (the kernel's
:class:`~adjudicator.kernel.last_action.Entry`); :func:`for_viewer` gives a viewer only what
it may see. Everything in Turning Point: Stalingrad is public today, but the
View stays per viewer, like the pending decision's options.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import Field

from adjudicator.kernel.events import Event
from adjudicator.kernel.last_action import ActionRecord, Entry, entry_list
from adjudicator.stalingrad.places import EAST


class MoveRecord(Entry):
    """Units that went the same way: ``path`` is start, every Area or Zone entered, end."""

    kind: str = "move"  # move, regroup, land, infiltrate
    units: list[str]
    path: list[str]


class AttackRecord(Entry):
    area: str
    group: str  # fresh, spent or rubble
    side: str  # the attacker
    units: list[str] = Field(default_factory=list)
    ranged_from: list[str] = Field(default_factory=list)  # Areas of Ranged attackers (8.31)
    odds: str = ""  # attack value : defense value, before the dice
    total: str | None = None  # the totals after the dice, e.g. "15:12"
    cp: int | None = None  # Casualty Points (or Rubble layers removed)
    result: str | None = None  # cp, overrun, equal, repulsed
    text: str | None = None  # "15:12 — 3 CP", "19:11 — 8 CP, Overrun", "9:14 — repulsed, Rout"
    routed: list[str] = Field(default_factory=list)  # attackers Routed back (8.37)
    eliminated: list[str] = Field(default_factory=list)


class RetreatRecord(Entry):
    kind: str = "retreat"  # retreat, or rout (8.37)
    units: list[str]
    path: list[str]  # from, every Area entered


class CrossingRecord(Entry):
    kind: str = "cross"  # cross (18.5) or recross (18.7)
    unit: str
    area: str  # the landing (cross) or the Ferry Landing left (recross)
    outcome: str  # landed, landed-disrupted, returned, eliminated
    total: int | None = None


class EliminatedRecord(Entry):
    unit: str
    area: str | None = None  # where it was


class OrderRecord(Entry):
    side: str
    text: str


class LastAction(ActionRecord):
    """The last impulse (or the one in progress), as the rules resolved it."""

    side: str
    date: int
    day: bool
    box: int
    origin: str | None = None  # the impulse's Area of origin (8.11)
    passed: bool = False
    orders: list[OrderRecord] = entry_list()
    moves: list[MoveRecord] = entry_list()
    attacks: list[AttackRecord] = entry_list()
    retreats: list[RetreatRecord] = entry_list()
    crossings: list[CrossingRecord] = entry_list()
    eliminated: list[EliminatedRecord] = entry_list()


def attack_text(total: str, result: str | None, cp: int | None, *, rubble: bool = False,
                rout: bool = False) -> str:
    """The result of an attack in a few words: "15:12 — 3 CP", "19:11 — 8 CP, Overrun"."""
    if rubble:
        text = f"{total} vs Rubble — {cp or 0} layer(s) removed"
        if result == "overrun":
            text += ", Overrun"
    elif result == "overrun":
        text = f"{total} — {cp} CP, Overrun"
    elif result == "cp":
        text = f"{total} — {cp} CP"
    elif result == "equal":
        text = f"{total} — no effect"
    else:
        text = f"{total} — repulsed"
    return text + (", Rout" if rout else "")


def _strs(value: object) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return []


def fold(record: LastAction, events: Iterable[Event], before: Mapping[str, str]) -> None:
    """Add one order's ``events`` to ``record``; ``before`` maps units to where they were
    before the order (the start of a path seen for the first time)."""
    paths = {m.units[0]: m for m in record.moves if len(m.units) == 1}
    retreating: dict[str, RetreatRecord] = {}
    for r in record.retreats:
        for uid in r.units:
            retreating[uid] = r

    def extend(uid: str, area: str, kind: str, start: str | None, audience: str) -> None:
        move = paths.get(uid)
        if move is None:
            first = start if start is not None else before.get(uid)
            move = MoveRecord(kind=kind, units=[uid], path=[first] if first else [],
                              audience=audience)
            record.moves.append(move)
            paths[uid] = move
        if not move.path or move.path[-1] != area:
            move.path.append(area)

    def retreat(units: list[str], src: str, dest: str, kind: str, audience: str) -> None:
        fresh: list[str] = []
        for uid in units:
            known = retreating.get(uid)
            if known is not None and known.path[-1] == src:
                if len(known.units) == 1:
                    known.path.append(dest)
                    continue
                # part of a Group goes on: it gets its own path from here
                known.units.remove(uid)
                split = RetreatRecord(kind=known.kind, units=[uid],
                                      path=[*known.path, dest], audience=audience)
                record.retreats.append(split)
                retreating[uid] = split
                continue
            fresh.append(uid)
        if fresh:
            entry = RetreatRecord(kind=kind, units=fresh, path=[src, dest], audience=audience)
            record.retreats.append(entry)
            for uid in fresh:
                retreating[uid] = entry

    for event in events:
        data = event.data
        kind = event.kind
        audience = event.audience
        unit = str(data["unit"]) if data.get("unit") is not None else None
        area = str(data["area"]) if data.get("area") is not None else None
        if kind == "move" and unit and area:
            if area != before.get(unit) or unit in paths:  # not "moves within its Area"
                extend(unit, area, "move", None, audience)
        elif kind in ("regroup", "infiltration", "retrace") and unit and area:
            extend(unit, area, {"regroup": "regroup", "infiltration": "infiltrate"}.get(
                kind, "move"), None, audience)
        elif kind == "land" and unit and area:
            extend(unit, area, "land", EAST, audience)
        elif kind == "attack" and area:
            record.attacks.append(AttackRecord(
                area=area, group=str(data.get("group", "")), side=str(data.get("side", "")),
                units=_strs(data.get("units")), ranged_from=_strs(data.get("ranged_from")),
                odds=str(data.get("odds", "")), audience=audience))
        elif kind == "attack-result" and area and record.attacks:
            attack = record.attacks[-1]
            attack.total = str(data.get("total", ""))
            attack.result = str(data["result"]) if data.get("result") else None
            cp = data.get("cp", data.get("removed"))
            attack.cp = int(cp) if isinstance(cp, int) else None
            attack.text = attack_text(attack.total, attack.result, attack.cp,
                                      rubble=attack.group == "rubble")
        elif kind == "rout" and unit and area:
            if record.attacks:  # 8.37: out of the attacked Area, back where it came from
                attack = record.attacks[-1]
                retreat([unit], attack.area, area, "rout", audience)
                attack.routed.append(unit)
                if attack.total is not None:
                    attack.text = attack_text(attack.total, attack.result, attack.cp,
                                              rubble=attack.group == "rubble", rout=True)
        elif kind == "retreat" and area and data.get("from") is not None:
            units = _strs(data.get("units")) + _strs(data.get("going"))
            moving = "rout" if any(retreating.get(u) and retreating[u].kind == "rout"
                                   for u in units) else "retreat"
            retreat(units, str(data["from"]), area, moving, audience)
        elif kind == "eliminated" and unit:
            record.eliminated.append(EliminatedRecord(unit=unit, area=area,
                                                      audience=audience))
            if record.attacks and area == record.attacks[-1].area:
                record.attacks[-1].eliminated.append(unit)
        elif kind == "crossing" and unit and not data.get("outcome"):
            for crossing in reversed(record.crossings):  # 18.52: back to the east bank
                if crossing.unit == unit:
                    crossing.outcome = "returned"
                    break
        elif kind in ("crossing", "recross") and unit and data.get("outcome"):
            outcome = str(data["outcome"])
            where = area or (record.crossings[-1].area if record.crossings else "")
            total = data.get("total")
            record.crossings.append(CrossingRecord(
                kind="cross" if kind == "crossing" else "recross", unit=unit, area=where,
                outcome=outcome, total=int(total) if isinstance(total, int) else None,
                audience=audience))
        elif kind == "pass":
            record.passed = True


def seen_by(record: LastAction | None, viewer: str) -> frozenset[str]:
    """The audiences of ``record``'s entries that ``viewer`` may see: viewers with the same
    set are shown the same record by :func:`for_viewer`."""
    return frozenset() if record is None else record.audiences_seen_by(viewer)


def for_viewer(record: LastAction | None, viewer: str) -> LastAction | None:
    """What ``viewer`` may know of ``record``; moves that went the same way are merged."""
    if record is None:
        return None
    seen = record.for_viewer(viewer)
    moves: list[MoveRecord] = []
    index: dict[tuple[str, tuple[str, ...], str], MoveRecord] = {}
    for move in seen.moves:
        key = (move.kind, tuple(move.path), move.audience)
        known = index.get(key)
        if known is None:
            index[key] = known = MoveRecord(kind=move.kind, units=[], path=list(move.path),
                                            audience=move.audience)
            moves.append(known)
        known.units.extend(move.units)
    for move in moves:
        move.units.sort()
    seen.moves = moves
    return seen
