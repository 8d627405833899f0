"""What each viewer may know of a game of Stalin's Tanks.

* The public and the opposing side never see a hidden unit (20.0), a face-down unit's
  identity (25.7), an unrevealed mine (19.0), or an enemy's units still to set up.
* The owner and the GM see everything of that side; the GM sees both sides.
* Every view shows the published commitments; after the game, the revealed secret sets.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.views import View
from adjudicator.tanks import scenario
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.last_action import LastAction, for_viewer
from adjudicator.tanks.sides import SIDES
from adjudicator.tanks.state import PHASE_NAMES

__all__ = ["PHASE_NAMES", "SIDES", "LastAction", "TanksView", "UnitView", "board_text",
           "build_view"]


class UnitView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    side: str
    type: str
    label: str
    status: str
    hex: str | None = None
    facing: str | None = None
    hidden: bool = False
    concealed: bool = False
    disrupted: bool = False
    carrier: str | None = None
    moved: bool = False
    fired: bool = False


class TanksView(View):
    scenario: str
    turn: int
    last_turn: int
    phase: str
    phasing: str
    advanced: bool
    options: dict[str, bool] = Field(default_factory=dict)
    units: list[UnitView] = Field(default_factory=list)
    mines: dict[str, str] = Field(default_factory=dict)  # hex -> owner
    marker: dict[str, Any] | None = None
    commitments: dict[str, str] = Field(default_factory=dict)
    revealed_secrets: dict[str, list[str]] = Field(default_factory=dict)
    salts: dict[str, str] = Field(default_factory=dict)
    columns: int = 0
    rows: int = 0
    # mines revealed to everyone (hex -> owner): in ``mines`` but not here is still secret
    known_mines: dict[str, str] = Field(default_factory=dict)
    # what the last action did, as far as this viewer may know (last_action.py)
    last_action: LastAction | None = None
    # while a side sets up (4.0): side -> the hexes of its set-up zone (scenario rules,
    # known to everyone; what is placed there is in ``units`` as this viewer may see it)
    setup_zone: dict[str, list[str]] = Field(default_factory=dict)


def build_view(ctx: Ctx, game: str, viewer: str) -> TanksView:
    state = ctx.state
    gm = viewer == "gm"
    setup_units = set(state.flags.get("setup_units", []))
    units: list[UnitView] = []
    face_down = sorted((u for u in state.units if u.status == "on" and u.concealed
                        and not (gm or viewer == u.side)), key=lambda u: u.hex or "")
    aliases = {u.id: f"?{n}" for n, u in enumerate(face_down, start=1)}
    for unit in sorted(state.units, key=lambda u: (u.side, u.id)):
        own = gm or viewer == unit.side
        if not own:
            if unit.status == "on" and unit.hidden:
                continue
            if (unit.status == "waiting" and unit.id in setup_units
                    and scenario.sets_up_secrets(state, unit.side)):
                continue  # which units are still to set up tells which were set up hidden
            if unit.status == "on" and unit.concealed:
                units.append(UnitView(id=aliases[unit.id], side=unit.side, type="?", label="?",
                                      status="on", hex=unit.hex, concealed=True))
                continue
        kind_type = ctx.type_of(unit)
        units.append(UnitView(
            id=unit.id, side=unit.side, type=unit.type, label=kind_type.label,
            status=unit.status, hex=unit.hex, facing=unit.facing, hidden=unit.hidden,
            concealed=unit.concealed, disrupted=unit.no_fire or unit.no_move,
            carrier=unit.carrier, moved=unit.moved, fired=unit.fired))
    units.sort(key=lambda u: (u.side, u.id))
    mines = dict(state.known_mines)
    for owner, hexes in state.mines.items():
        if gm or viewer == owner:
            for h in hexes:
                mines.setdefault(h, owner)
    marker = state.marker.model_dump() if state.marker else None
    zone = scenario.setup_zone(ctx)
    return TanksView(
        game=game, viewer=viewer, scenario=state.scenario, turn=state.turn,
        last_turn=state.last_turn, phase=state.phase, phasing=state.phasing,
        advanced=state.advanced, options=dict(state.options), units=units,
        mines=dict(sorted(mines.items())), marker=marker,
        commitments={s: v.commitment for s, v in sorted(state.secrets.items())},
        revealed_secrets={s: list(v.entries) for s, v in sorted(state.secrets.items())
                          if v.revealed or gm or viewer == s},
        salts={s: v.salt for s, v in sorted(state.secrets.items())
               if v.revealed or gm or viewer == s},
        columns=ctx.map.columns, rows=ctx.map.rows,
        known_mines=dict(sorted(state.known_mines.items())),
        last_action=for_viewer(state.last_action, viewer, marker),
        setup_zone={zone[0]: list(zone[1])} if zone else {},
    )


def board_text(view: TanksView) -> str:
    lines = [f"{view.scenario} — turn {view.turn}/{view.last_turn}, {view.phasing} player turn, "
             f"{PHASE_NAMES.get(view.phase, view.phase)}"]
    for side in SIDES:
        on = [u for u in view.units if u.side == side and u.status == "on"]
        lines.append(f"{side}:")
        for u in sorted(on, key=lambda u: u.hex or ""):
            marks = "".join([
                " [hidden]" if u.hidden else "", " [face-down]" if u.concealed else "",
                " [disrupted]" if u.disrupted else "",
                f" [aboard {u.carrier}]" if u.carrier else "",
            ])
            facing = f" facing {u.facing}" if u.facing else ""
            lines.append(f"  {u.hex} {u.id} ({u.label}){facing}{marks}")
        waiting = [u.id for u in view.units if u.side == side and u.status == "waiting"]
        if waiting:
            lines.append(f"  to enter: {', '.join(waiting)}")
        gone = [u.id for u in view.units if u.side == side and u.status in ("destroyed",
                                                                          "exited")]
        if gone:
            lines.append(f"  out of play: {', '.join(gone)}")
    if view.mines:
        lines.append("mines: " + ", ".join(f"{h} ({o})" for h, o in view.mines.items()))
    if view.marker:
        lines.append(f"barrage marker: {view.marker['hex']} ({view.marker['weight']})")
    for side, value in view.commitments.items():
        lines.append(f"{side} secret set-up commitment: {value}")
    return "\n".join(lines)
