"""Fire: anti-tank (10.0-11.0), anti-personnel (13.0), HE (14.0), infantry (15.0), close
assault (16.0) and the optional Soviet suicide assault (24.0) and range attenuation (21.0).

``plan_*`` judges an order from what the firing side knows (refusals never depend on a
secret); ``resolve_*`` rolls the dice. Dice order for one shot: the To Hit DR (none when
the hit is automatic: adjacent outside the Mobile Fire Phase, and every infantry shot),
then the Hit Effect / Anti-Personnel DR (none for "-" or "X", and none for HE).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from adjudicator.kernel.errors import RuleError
from adjudicator.tanks.context import Ctx, shift_class, two_dice_at_most
from adjudicator.tanks.hexgrid import Arc, Direction, Hex, arc_of, front_zone
from adjudicator.tanks.movement import mine_attacks
from adjudicator.tanks.sides import other
from adjudicator.tanks.spec import UnitType
from adjudicator.tanks.state import FIRE_PHASES, PHASE_NAMES, Unit


@dataclass
class Shot:
    firers: list[Unit]
    target: Unit
    mode: str  # at | ap | he | inf-at | inf-ap
    range: int
    need: int | None = None  # To Hit number; None: automatic hit
    drm: int = 0
    drm_parts: list[str] = field(default_factory=list)
    armor_class: str | None = None
    factor: int = 0  # AT Factor (attenuated) or AP Factor used
    effect: str | int | None = None  # Hit Effects entry ("-", "X", n) or AP table need
    odds: str | None = None
    defense: int | None = None

    @property
    def roll_needed(self) -> int | None:
        """The unmodified To Hit roll that hits (snake eyes always does)."""
        return None if self.need is None else max(self.need - self.drm, 2)

    def hit_probability(self) -> float:
        if self.need is None:
            return 1.0
        return two_dice_at_most(max(self.need - self.drm, 2))

    def kill_probability(self) -> float:
        if self.mode == "he":
            return 1 / 36
        if self.effect is None or self.effect == "-":
            return 0.0
        kill = 1.0 if self.effect == "X" else two_dice_at_most(int(self.effect))
        return self.hit_probability() * kill


def fire_side(ctx: Ctx) -> str:
    """Who fires in the current fire phase (5.1)."""
    return other(ctx.state.phasing) if ctx.state.phase == "defensive" else ctx.state.phasing


def eligible(ctx: Ctx, unit: Unit, phase: str | None = None) -> str | None:
    """Why ``unit`` may not fire in ``phase`` (ignoring disruption), or None."""
    state = ctx.state
    phase = phase or state.phase
    kind = ctx.type_of(unit).kind
    if phase == "defensive":
        return None if unit.side != state.phasing else "only the non-phasing player fires"
    if unit.side != state.phasing:
        return f"only {state.phasing} fires in the {PHASE_NAMES[phase]}"
    if phase == "stationary" and unit.moved:
        return f"{unit.id} moved in the First Movement Phase; it may fire in the Mobile Fire Phase"
    if phase == "mobile":
        if not unit.moved:
            return f"{unit.id} did not move; it could fire in the Stationary Fire Phase"
        if kind not in ("tank", "infantry"):
            return "SP guns and AT guns do not fire in the Mobile Fire Phase"
    return None


def check_firer(ctx: Ctx, side: str, unit: Unit, assault: bool = False) -> UnitType:
    state = ctx.state
    if state.phase not in FIRE_PHASES:
        raise RuleError("5.0", f"units fire only in fire phases; it is the "
                        f"{PHASE_NAMES.get(state.phase, state.phase)}")
    if side != fire_side(ctx):
        raise RuleError("5.0", f"{fire_side(ctx)} fires in the {PHASE_NAMES[state.phase]}")
    if unit.side != side or unit.status != "on":
        raise RuleError("10.1", f"{unit.id} is not a {side} unit on the map")
    why = eligible(ctx, unit)
    if why:
        raise RuleError("10.1", why)
    if unit.carrier is not None:
        raise RuleError("17.4", f"{unit.id} is being transported and may not fire")
    kind_type = ctx.type_of(unit)
    if kind_type.kind != "halftrack" and any(
        ctx.type_of(u).kind == "halftrack" for u in ctx.state.at(unit.hex or "")
        if u.id != unit.id
    ):
        raise RuleError("17.4", f"{unit.id} shares its hex with a halftrack and may not fire")
    if unit.fired:
        raise RuleError("16.1" if assault else "10.1",
                        f"{unit.id} has already fired or assaulted this phase")
    if unit.no_fire:
        raise RuleError("14.3", f"{unit.id} is disrupted and may not fire this phase")
    if unit.overran:
        raise RuleError("23.1", f"{unit.id} overran this player turn and may not fire")
    return kind_type


def known_target(ctx: Ctx, side: str, target_id: str) -> Unit:
    """An enemy unit the side sees (by id, or any name :meth:`Ctx.find` reads); only
    those are candidates, so a refusal never tells of a hidden unit."""
    known = [u for u in ctx.enemies_seen_by(side) if not u.concealed]
    try:
        return ctx.find(known, target_id, "target")
    except RuleError as error:
        if error.message.startswith("ambiguous"):
            raise RuleError("10.1", error.message, error.legal) from None
        hint = error.message.partition(" — ")[2]
        raise RuleError("10.1", f"no enemy unit {target_id!r} is known on the map"
                        + (f" — {hint}" if hint else ""),
                        sorted(u.id for u in known)) from None


def armor_class(ctx: Ctx, target: Unit, firer_hex: str) -> str:
    """8.5 flank/rear, 10.7 hill (tanks and SP guns only), 22.0 (optional) edge of the full
    frontal face."""
    kind_type = ctx.type_of(target)
    assert kind_type.armor_class is not None and target.hex is not None
    letter = kind_type.armor_class
    levels = 0
    if kind_type.has_facing and target.facing:
        here, facing = Hex.parse(target.hex), Direction[target.facing]
        if arc_of(here, facing, Hex.parse(firer_hex)) is not Arc.FRONT:
            key = "flank_shift_circled" if kind_type.armor_circled else "flank_shift_plain"
            levels -= int(ctx.tables.const(key))
        elif ctx.state.options.get("fff") and front_zone(
                here, facing, Hex.parse(firer_hex)) == "edge":
            levels += int(ctx.tables.const("fff_shift"))
    if kind_type.tank_or_sp_gun:  # 10.7: "a tank or SP gun" on a hill, not a halftrack
        levels += ctx.tables.terrain[ctx.terrain(target.hex)].armor_class_shift
    return shift_class(letter, levels)


def attenuated(ctx: Ctx, firer: Unit, kind_type: UnitType, rng: int) -> int:
    """21.0 (optional): the AT Factor loses a point per two (circled German: four) hexes."""
    if not ctx.state.options.get("attenuation"):
        return kind_type.at
    if kind_type.at_circled and firer.side == "german":
        base = int(ctx.tables.const("attenuation_base_range_circled_german"))
        step = int(ctx.tables.const("attenuation_step_circled_german"))
    else:
        base = int(ctx.tables.const("attenuation_base_range"))
        step = int(ctx.tables.const("attenuation_step"))
    lost = max(0, math.ceil((rng - base) / step))
    return max(0, kind_type.at - lost)


def hit_effect(ctx: Ctx, factor: int, letter: str) -> str | int:
    if factor <= 0:
        return "-"
    column = ctx.tables.hit_column(factor)
    if column is None:
        return "-"
    value = ctx.tables.hit_effects[letter][column]
    return value if isinstance(value, int) else str(value)


def odds_for(ctx: Ctx, ap: int, defense: int) -> tuple[str, int] | None:
    """13.3: AP Factor to Defense Factor, rounded in the defender's favour."""
    if ap <= 0:
        return None
    table = dict(ctx.tables.ap_odds)
    if ap >= defense:
        best = max(int(label.split("-")[0]) for label in table if label.endswith("-1"))
        label = f"{min(ap // defense, best)}-1"
    else:
        label = f"1-{math.ceil(defense / ap)}"
    if label not in table:
        return None  # below 1-4: the attack cannot destroy
    return label, table[label]


def defense_of(ctx: Ctx, target: Unit) -> int:
    kind_type = ctx.type_of(target)
    assert kind_type.defense is not None and target.hex is not None
    return kind_type.defense * ctx.tables.terrain[ctx.terrain(target.hex)].defense_multiplier


def plan_fire(ctx: Ctx, side: str, firer_ids: tuple[str, ...], target_id: str,
              mode: str | None) -> Shot:
    state = ctx.state
    firers: list[Unit] = []
    for firer_id in firer_ids:
        unit = state.unit(firer_id)
        if unit is None or unit.side != side or unit.status != "on":
            raise RuleError("10.1", f"{side} has no unit {firer_id!r} on the map")
        firers.append(unit)
    types = [check_firer(ctx, side, unit) for unit in firers]
    target = known_target(ctx, side, target_id)
    target_type = ctx.type_of(target)
    assert target.hex is not None
    for unit, kind_type in zip(firers, types, strict=True):
        assert unit.hex is not None
        if not ctx.los(unit.hex, target.hex):
            raise RuleError("9.1", f"{unit.id} in {unit.hex} has no line of sight to "
                            f"{target.id} in {target.hex}")
        if kind_type.kind == "sp_gun" and unit.facing and arc_of(
                Hex.parse(unit.hex), Direction[unit.facing], Hex.parse(target.hex)) \
                is not Arc.FRONT:
            raise RuleError("8.7", f"{unit.id} is an SP gun and fires only to its front")
    infantry = [k.kind == "infantry" for k in types]
    if len(firers) > 1 and not all(infantry):
        raise RuleError("15.2", "only infantry may combine fire")
    if len(set(firer_ids)) != len(firer_ids):
        raise RuleError("15.2", "a unit is named twice")
    first, first_type = firers[0], types[0]
    assert first.hex is not None
    rng = ctx.range(first.hex, target.hex)
    mobile = state.phase == "mobile"
    if target_type.armored:
        mode = mode or "at"
        if mode == "ap":
            raise RuleError("13.1", "AP fire is against unarmored targets; use AT or HE")
        if all(infantry):
            if mode == "he":
                raise RuleError("14.1", "infantry do not fire HE")
            if len(firers) > 1:
                raise RuleError("15.2", "infantry combine only AP fire")
            _advanced(ctx, "15.3")
            limit = int(ctx.tables.const("infantry_at_max_range"))
            if rng > limit:
                raise RuleError("15.3", f"infantry fire on armored units reaches {limit} "
                                f"hexes; {target.id} is {rng} away")
            letter = armor_class(ctx, target, first.hex)
            return Shot(firers, target, "inf-at", rng, None, 0, [], letter, first_type.at,
                        hit_effect(ctx, first_type.at, letter))
        if mode == "he":
            _advanced(ctx, "14.1")
            if first_type.ap <= 0 and first_type.at <= 0:
                raise RuleError("14.1", f"{first.id} has no gun")
            need = ctx.tables.to_hit_need(rng, mobile)
            drm, parts = _drm(ctx, "he", mobile)
            return Shot(firers, target, "he", rng, need, drm, parts)
        if first_type.at <= 0:
            raise RuleError("10.1", f"{first.id} has no Anti-Tank Factor")
        need = ctx.tables.to_hit_need(rng, mobile)
        drm, parts = _drm(ctx, "anti-tank", mobile)
        if first_type.at_circled and first.side == "german":
            drm += ctx.tables.drm["anti-tank"]["accuracy"]
            parts.append(f"accuracy {ctx.tables.drm['anti-tank']['accuracy']:+d}")
        cover = ctx.tables.terrain[ctx.terrain(target.hex)].at_to_hit_drm
        if cover:
            drm += cover
            parts.append(f"{ctx.terrain(target.hex)} {cover:+d}")
        letter = armor_class(ctx, target, first.hex)
        factor = attenuated(ctx, first, first_type, rng)
        return Shot(firers, target, "at", rng, need, drm, parts, letter, factor,
                    hit_effect(ctx, factor, letter))
    # unarmored target
    mode = mode or "ap"
    if mode != "ap":
        raise RuleError("13.1", "unarmored targets are attacked with AP fire")
    _advanced(ctx, "13.0")
    defense = defense_of(ctx, target)
    if all(infantry):
        limit = int(ctx.tables.const("infantry_ap_max_range"))
        double = int(ctx.tables.const("infantry_ap_adjacent_multiplier"))
        total = 0
        for unit, kind_type in zip(firers, types, strict=True):
            assert unit.hex is not None
            distance = ctx.range(unit.hex, target.hex)
            if distance > limit:
                raise RuleError("15.1", f"infantry AP fire reaches {limit} hexes; {unit.id} "
                                f"is {distance} away")
            total += kind_type.ap * (double if distance == 1 else 1)
        odds = odds_for(ctx, total, defense)
        return Shot(firers, target, "inf-ap", rng, None, 0, [], None, total,
                    odds[1] if odds else "-", odds[0] if odds else None, defense)
    if first_type.ap <= 0:
        raise RuleError("13.1", f"{first.id} has no Anti-Personnel Factor")
    need = ctx.tables.to_hit_need(rng, mobile)
    drm, parts = _drm(ctx, "anti-personnel", mobile)
    odds = odds_for(ctx, first_type.ap, defense)
    return Shot(firers, target, "ap", rng, need, drm, parts, None, first_type.ap,
                odds[1] if odds else "-", odds[0] if odds else None, defense)


def _advanced(ctx: Ctx, rule: str) -> None:
    if not ctx.state.advanced:
        raise RuleError(rule, "an advanced rule, not used in a basic game")


def _drm(ctx: Ctx, table: str, mobile: bool) -> tuple[int, list[str]]:
    values = ctx.tables.drm.get(table, {})
    drm, parts = 0, []
    if "all" in values:
        drm += values["all"]
        parts.append(f"{table} {values['all']:+d}")
    if mobile:
        drm += values["mobile-fire"]
        parts.append(f"mobile fire {values['mobile-fire']:+d}")
    return drm, parts


def resolve_fire(ctx: Ctx, shot: Shot) -> None:
    target = shot.target
    for firer in shot.firers:
        firer.fired = True
        if firer.hidden:
            ctx.reveal(firer, "it fires")
    names = "+".join(u.id for u in shot.firers)
    label = f"{names} {shot.mode.upper()} fire at {target.id}"
    data: dict[str, Any] = {
        "firers": [u.id for u in shot.firers], "target": target.id, "mode": shot.mode,
        "range": shot.range, "need": shot.need, "drm": shot.drm,
        "to_hit": shot.roll_needed, "armor_class": shot.armor_class, "factor": shot.factor,
        "effect": shot.effect, "odds": shot.odds, "defense": shot.defense,
        # where the shot came from and went to; a hidden firer was revealed just above (20.0)
        "firer_hexes": [u.hex for u in shot.firers], "target_hex": target.hex,
    }
    rule = {"at": "10.2", "ap": "13.2", "he": "14.2", "inf-at": "15.3", "inf-ap": "15.1"}
    # To Hit
    hit = True
    roll = None
    if shot.mode == "he" or shot.need is not None:
        roll = ctx.roll(f"{label}: To Hit DR")
        hit = (roll == int(ctx.tables.const("snake_eyes")) or shot.need is None
               or roll + shot.drm <= shot.need)
    data.update(hit_roll=roll, hit=hit)
    words = [f"{label} at range {shot.range}"]
    if roll is not None:
        versus = f"vs {shot.need}" if shot.need is not None else "(adjacent: automatic)"
        words.append(f"To Hit {roll}{shot.drm:+d} {versus}: " + ("hit" if hit else "miss"))
    else:
        words.append("hits automatically")
    destroyed = False
    disrupted = False
    if hit and shot.mode == "he":
        if roll == int(ctx.tables.const("he_destroy_roll")):
            destroyed = True
            words.append("an unmodified 2: destroyed (14.2)")
        else:
            disrupted = True
            target.no_fire = target.no_move = True
            words.append(f"{target.id} is disrupted (14.3)")
    elif hit:
        effect = shot.effect
        if shot.armor_class is not None:
            words.append(f"Armor Class {shot.armor_class}, factor {shot.factor}")
        if shot.odds is not None:
            words.append(f"odds {shot.odds} (factor {shot.factor} vs defense {shot.defense})")
        if effect == "X":
            destroyed = True
            words.append("automatically destroyed (10.6)")
        elif effect == "-" or effect is None:
            words.append("no effect possible (10.6)" if shot.armor_class else
                         "odds below the Anti-Personnel Table: no effect (13.3)")
        else:
            kill = ctx.roll(f"{label}: " + ("Hit Effect DR" if shot.armor_class else
                                           "Anti-Personnel DR"))
            destroyed = kill <= int(effect)
            data["effect_roll"] = kill
            words.append(f"{kill} vs {effect} or less: "
                         + ("destroyed" if destroyed else "no effect"))
    data.update(destroyed=destroyed, disrupted=disrupted)
    ctx.emit("fire", "; ".join(words), rule[shot.mode], **data)
    if destroyed:
        ctx.destroy(target, f"{names} {shot.mode.upper()} fire", rule[shot.mode])


# ---- close assault (16.0, 24.0) -------------------------------------------------------------


def plan_assault(ctx: Ctx, side: str, unit_id: str, target_id: str, suicide: bool) -> tuple[
        Unit, Unit, int]:
    unit = ctx.state.unit(unit_id)
    if unit is None or unit.side != side or unit.status != "on":
        raise RuleError("16.1", f"{side} has no unit {unit_id!r} on the map")
    kind_type = check_firer(ctx, side, unit, assault=True)
    _advanced(ctx, "16.0")
    if kind_type.kind != "infantry":
        raise RuleError("16.1", "only infantry close assault")
    target = known_target(ctx, side, target_id)
    assert unit.hex is not None and target.hex is not None
    if ctx.range(unit.hex, target.hex) != 1:
        raise RuleError("16.1", f"{target.id} is not adjacent to {unit.id}")
    if suicide:
        if not ctx.state.options.get("suicide"):
            raise RuleError("24.0", "the suicide assault is an optional rule not in use")
        if side != "soviet":
            raise RuleError("24.0", "only Soviet infantry make suicide assaults")
        return unit, target, int(ctx.tables.const("suicide_assault"))
    key = "close_assault_german" if side == "german" else "close_assault_soviet"
    return unit, target, int(ctx.tables.const(key))


def resolve_assault(ctx: Ctx, unit: Unit, target: Unit, need: int, suicide: bool) -> None:
    unit.fired = True
    if unit.hidden:
        ctx.reveal(unit, "it close assaults")
    kind = "suicide assault" if suicide else "close assault"
    total = ctx.roll(f"{unit.id} {kind} on {target.id}")
    destroyed = total <= need
    where = target.hex
    ctx.emit("assault", f"{unit.id} makes a {kind} on {target.id} in {where}: {total} vs "
             f"{need} or less — " + ("destroyed" if destroyed else "fails"),
             "24.0" if suicide else "16.2", unit=unit.id, target=target.id, roll=total,
             need=need, destroyed=destroyed, suicide=suicide, unit_hex=unit.hex,
             target_hex=where)
    if destroyed:
        ctx.destroy(target, f"{kind} by {unit.id}", "16.2")
        assert where is not None
        if not ctx.state.at(where):  # 16.3: the infantry occupies the vacated hex
            unit.hex = where
            ctx.emit("advance", f"{unit.id} occupies {where}", "16.3", unit=unit.id, hex=where)
            survived, _ = mine_attacks(ctx, unit, None, where)
            if survived:
                ctx.reveal_adjacent_to(where, unit.side)
    elif suicide:
        ctx.destroy(unit, "its suicide assault failed", "24.0")
