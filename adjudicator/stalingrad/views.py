"""What a viewer may know, and the console board.

TP:S hides almost nothing on the map: every counter's position and side up are public.
What is private — standing orders and the options of a pending decision — is handled by
the kernel's :meth:`Game.view`. The view carries no secret today; part 2 keeps it so.

Besides the map, a View carries what the rules know and a picture should not work out for
itself: ``last_action`` (the last impulse as the rules resolved it, as far as the viewer may
see it: :mod:`adjudicator.stalingrad.last_action`) and the German's Victory Points (19.1):
``vp``, the VP Areas counted (``vp_areas``) and the most the scenario's map offers
(``vp_total``). ``UnitView.isolated``/``isolation`` is the Isolation marker (12.2).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from adjudicator.kernel.memo import Memo
from adjudicator.kernel.views import View
from adjudicator.stalingrad.board import Board, area_key_order
from adjudicator.stalingrad.last_action import LastAction, for_viewer
from adjudicator.stalingrad.places import DEAD, EAST, OFFBOARD, POOL
from adjudicator.stalingrad.sides import SIDES
from adjudicator.stalingrad.state import StalingradState
from adjudicator.stalingrad.victory import german_vp

#: What frontends and pictures read of the game: the Views, their last-action record, the
#: sides and the places off the board.
__all__ = ["DEAD", "EAST", "LEGEND", "OFFBOARD", "POOL", "SIDES", "AreaView", "LastAction",
           "StalingradView", "UnitView", "board_text", "build_view", "unit_token"]


class UnitView(BaseModel):
    id: str
    #: the short name players type and every message uses ("i/103"; the id when ambiguous)
    name: str = ""
    side: str
    kind: str
    loc: str
    fresh: bool
    duration: int | None = None  # dates until it recovers
    attack: int | None = None
    defense: int
    mf: int
    label: str = ""
    isolated: bool = False  # under an Isolation marker (12.2)
    isolation: int = 0  # the marker: 1 for "-1", 2 for "-2"


class AreaView(BaseModel):
    key: str
    label: str
    control: str
    rubble: int = 0
    tem: int = 0


class StalingradView(View):
    scenario: str
    phase: str
    date: int
    date_label: str
    #: the date's year, from the pack's calendar (the Turn Record Track's first date, 5.1)
    year: int
    day: bool
    box: int
    turn: str
    advantage: str
    advantage_usable: bool
    areas: list[AreaView]
    units: list[UnitView]
    impulse_origin: str | None = None
    impulse_mf: dict[str, int] = Field(default_factory=dict)
    attacked: list[str] = Field(default_factory=list)
    battle: str | None = None
    eliminated: dict[str, int] = Field(default_factory=dict)
    last_action: LastAction | None = None
    vp: int = 0  # the German's Victory Points now (19.1)
    vp_areas: list[str] = Field(default_factory=list)  # the VP Areas/Zones he controls
    vp_total: int = 0  # every VP on this scenario's map
    #: 13.2: the Armor replacement record: earned, spent, available, stopped
    armor_replacements: dict[str, int | bool] = Field(default_factory=dict)
    cards_left: dict[str, int] = Field(default_factory=dict)  # 22.21: each side's deck
    sealed: list[str] = Field(default_factory=list)  # secrets chosen, not yet revealed (22)


#: Per board: its Areas in key order, the unit and Area views made so far, by content, and
#: the units' ids in a View's order (sorted) by their order in a state.
_PARTS = Memo[tuple[list[tuple[str, str, int]], dict[tuple[object, ...], UnitView],
                    dict[tuple[object, ...], AreaView],
                    dict[tuple[str, ...], tuple[str, ...]]]](size=16)
#: The unit and Area views kept per board: a dozen games' positions (all dropped when full;
#: the next View makes its own again).
_PARTS_LIMIT = 5000
#: The units' orders kept per board (a game's set of units changes a few times at most).
_ORDERS_LIMIT = 64


def _parts(board: Board) -> tuple[list[tuple[str, str, int]],
                                  dict[tuple[object, ...], UnitView],
                                  dict[tuple[object, ...], AreaView],
                                  dict[tuple[str, ...], tuple[str, ...]]]:
    return _PARTS.get((board,), "view-parts", lambda: (
        [(k, a.label, a.tem) for k, a in sorted(board.areas.items(),
                                                key=lambda kv: area_key_order(kv[0]))],
        {}, {}, {}))


def _sorted_ids(orders: dict[tuple[str, ...], tuple[str, ...]], ids: tuple[str, ...]
                ) -> tuple[str, ...]:
    """``ids`` sorted, kept by their order (a state's units keep theirs from one action
    to the next: one look-up instead of a sort)."""
    found = orders.get(ids)
    if found is None:
        if len(orders) >= _ORDERS_LIMIT:
            orders.clear()
        found = orders[ids] = tuple(sorted(ids))
    return found


def build_view(board: Board, state: StalingradState, viewer: str, game: str) -> StalingradView:
    """The View of ``state`` (every viewer sees the same map; only ``last_action`` differs).

    Views are read-only to their users, so equal unit and Area views are one object, made
    once (unvalidated: their fields come from the validated state and pack) and kept per
    board: a View is a few hundred dictionary look-ups, not as many models built."""
    order, unit_views, area_views, orders = _parts(board)
    if len(unit_views) > _PARTS_LIMIT:
        unit_views.clear()
    if len(area_views) > _PARTS_LIMIT:
        area_views.clear()
    date = state.date
    units = []
    make_unit = UnitView.model_construct
    all_units = state.units
    for uid in _sorted_ids(orders, tuple(all_units)):
        unit = all_units[uid]
        recover, fresh, isolation = unit.recover, unit.fresh, unit.isolation
        duration = (recover - date) if recover is not None else None
        key = (uid, unit.loc, fresh, duration, isolation)
        made = unit_views.get(key)
        if made is None:
            d = board.units[uid]
            made = unit_views[key] = make_unit(
                id=uid, name=board.short_unit(uid), side=d.side, kind=d.kind, loc=unit.loc,
                fresh=fresh, duration=duration,
                attack=d.attack, defense=d.defense if fresh else d.spent_defense, mf=d.mf,
                label=d.name, isolated=isolation > 0, isolation=isolation)
        units.append(made)
    control, rubble = state.control, state.rubble
    areas = []
    make_area = AreaView.model_construct
    for k, label, tem in order:
        akey = (k, control.get(k, "russian"), rubble.get(k, 0))
        area = area_views.get(akey)
        if area is None:
            area = area_views[akey] = make_area(key=k, label=label, control=akey[1],
                                                rubble=akey[2], tem=tem)
        areas.append(area)
    imp = state.impulse
    battle = state.battle
    vp, vp_areas = german_vp(board, state)
    return StalingradView.model_construct(
        game=game, viewer=viewer, scenario=state.scenario, phase=state.phase, date=state.date,
        date_label=board.date_label(state.date), year=board.day_of(state.date).year,
        day=state.day, box=state.box, turn=state.turn,
        advantage=state.advantage,
        advantage_usable=not state.advantage_used and state.advantage == state.advantage_start,
        areas=areas, units=units,
        impulse_origin=imp.origin if imp else None,
        impulse_mf={u: a.mf for u, a in imp.acts.items()} if imp else {},
        attacked=list(imp.attacked_areas) if imp else [],
        battle=(f"{battle.side} vs {battle.group} in {battle.area} at {battle.ov}:{battle.dv}"
                if battle else None),
        eliminated=dict(state.eliminated),
        last_action=for_viewer(state.last_action, viewer),
        vp=vp, vp_areas=vp_areas, vp_total=sum(a.vp for a in board.areas.values()),
        armor_replacements={
            "earned": state.replacements.earned, "spent": state.replacements.spent,
            "available": 0 if state.replacements.stopped else
            state.replacements.earned - state.replacements.spent,
            "stopped": state.replacements.stopped},
        cards_left={side: len(cards) for side, cards in sorted(state.decks.items())},
        sealed=sorted(state.secrets),
    )


def unit_token(u: UnitView) -> str:
    """``i/103[4-4-7]`` Fresh: Attack-Defense-MF; ``i/103(s2/1)`` Spent: its Spent Defense,
    then the dates until it is Fresh again (its Duration marker, 4.4) — :data:`LEGEND`."""
    name = u.name or u.id
    if u.fresh:
        attack = "*" if u.attack is None else str(u.attack)
        return f"{name}[{attack}-{u.defense}-{u.mf}]"
    return f"{name}(s{u.defense}{'/' + str(u.duration) if u.duration else ''})"


#: The board's key, printed under it: what a token and an Area's bracket mean.
LEGEND = ("key: i/103[4-4-7] Fresh (Attack-Defense-MF; * no Attack Factor); i/103(s2/1) "
          "Spent, Defense 2, Duration marker: Fresh again in 1 date (4.4); (s2) Spent, no "
          "marker: Fresh at the next Dawn if supplied (6.32); [G R1] German Control, Rubble 1")


PHASE_HINTS = {
    "setup": "setup (5.4-5.6): 'setup UNITS in AREA', 'setup auto' places the rest at their "
             "historical Areas, then 'setup done'",
    "rubble": "initial Rubble (5.7): the German types 'rubble' to roll, and play begins",
}


def board_text(view: StalingradView) -> str:
    """A compact console board: one line per occupied/rubbled Area."""
    period = "day" if view.day else "night"
    # Whoever must act now: the side owing a decision, a side still setting up, or the
    # side whose impulse it is (the kernel fills ``to_act``; ``turn`` is the fallback).
    acting = view.to_act or ("nobody" if view.result else view.turn)
    head = (f"{view.date_label} {period}, impulse box {view.box} — {acting} to act"
            f" — Advantage: {view.advantage}{'' if view.advantage_usable else ' (used)'}")
    if view.phase != "play":
        head += f" — {view.phase}"
    lines = [head]
    if view.phase in PHASE_HINTS:
        lines.append(PHASE_HINTS[view.phase])
    if view.result:
        lines.append(f"result: {view.result}")
    by_loc: dict[str, list[UnitView]] = {}
    for u in view.units:
        by_loc.setdefault(u.loc, []).append(u)
    for area in view.areas:
        here = by_loc.get(area.key, [])
        if not here and not area.rubble:
            continue
        mark = "G" if area.control == "german" else "R"
        rubble = f" R{area.rubble}" if area.rubble else ""
        sides = []
        for side, tag in (("german", "G"), ("russian", "R")):
            mine = [unit_token(u) for u in here if u.side == side]
            if mine:
                sides.append(f"{tag}: " + " ".join(mine))
        lines.append(f"{area.key:>3} [{mark}{rubble}] " + " | ".join(sides))
    for loc, title in ((EAST, "east bank"), (OFFBOARD, "off board")):
        here = by_loc.get(loc, [])
        if here:
            lines.append(f"{title}: " + " ".join(unit_token(u) for u in here))
    waiting = len(by_loc.get(POOL, []))
    dead = len(by_loc.get(DEAD, []))
    lines.append(f"to come: {waiting}; eliminated: German {view.eliminated.get('german', 0)},"
                 f" Russian {view.eliminated.get('russian', 0)} ({dead} in the dead pile)")
    if view.battle:
        lines.append(f"attack in progress: {view.battle}")
    lines.append(LEGEND)
    return "\n".join(lines)
