"""A battle's losses (8.354-8.3556) and retreats (8.355, 14.5), and its end (8.3556, 17.3).

The defender pays the Casualty Points of an attack from the attacked Group, the first from
its highest Defense Factor unit (the attacker chooses among equals, 8.354): by Disrupting
Fresh units, retreating or eliminating (8.3541) — or a standing policy does it
(:func:`allocate`). Units that retreat go Area by Area by the priorities of 8.3551, rolling
to enter Rubble (14.5) and Contested Areas (8.3552); a full Area overflows (7.1). When the
attack is over, Control is settled, Observers left alone return (8.3556), and a Stuka's
Mistaken Attack (17.3) takes its German losses the same way. The attack itself is
:mod:`adjudicator.stalingrad.combat`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from adjudicator.kernel.decisions import Decision, Option, PendingDecision, Standing
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.stalingrad.advantage import offer_reroll
from adjudicator.stalingrad.artillery import sweep_observers
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.control import eliminate, update_control
from adjudicator.stalingrad.movement import rubble_drm, rubble_need
from adjudicator.stalingrad.odds import defense_factor
from adjudicator.stalingrad.orders import Casualties, Notation, Overflow, RetreatTo, Tie
from adjudicator.stalingrad.places import DEAD
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, other
from adjudicator.stalingrad.state import Battle

FMT = Notation.format


# ---- the end of a battle -------------------------------------------------------------------------


def capacity(ctx: Ctx, units: Sequence[str]) -> int:
    """Most CP a Group can pay: 3 per Fresh unit, 2 per Spent unit (8.354)."""
    cp = ctx.board.tables.casualty_points
    return sum(cp.eliminate_fresh if ctx.fresh(u) else cp.eliminate_spent for u in units)


def finish_battle(ctx: Ctx) -> None:
    """The attack is over: Control, Observers left alone (8.3556); then a Mistaken Attack's
    German losses (17.3)."""
    battle = ctx.state.battle
    ctx.state.battle = None
    ctx.state.pending = None
    if battle is None:
        return
    update_control(ctx, battle.area)
    sweep_observers(ctx)
    cp = battle.plan.get("mistaken")
    if isinstance(cp, int) and cp > 0:
        start_mistaken(ctx, cp, battle.area)



# ---- Mistaken Attack (17.3) ----------------------------------------------------------------------


def start_mistaken(ctx: Ctx, cp: int, area: str) -> bool:
    """17.3: the German losses come from his Fresh Group there, else the Spent one; the
    first from the strongest unit (the Russian's choice on ties); excess CP are forfeit.
    Returns True when a decision is now pending."""
    fresh = ctx.combat(area, GERMAN, fresh=True)
    group, units = ("fresh", fresh) if fresh else ("spent", ctx.combat(area, GERMAN,
                                                                      fresh=False))
    if not units:
        return False
    battle = Battle(area=area, group=group, side=RUSSIAN, kind="mistaken", attackers=[],
                    ranged=[], entering=[], defenders=units, ov=0, dv=0, ov_parts=[],
                    dv_parts=[], cp=cp, stage="casualties", plan={"halve": False})
    ctx.state.battle = battle
    ctx.emit("mistaken-attack", f"Mistaken Attack: the Germans in {ctx.name(area)} lose {cp} "
             f"Casualty Point(s) from their {group} Group", "17.3", area=area, cp=cp,
             group=group)
    if cp >= capacity(ctx, units) + 1:
        for uid in units:
            eliminate(ctx, uid, "17.3", "Mistaken Attack")
        finish_battle(ctx)
        return ctx.state.pending is not None
    ask_first_loss(ctx, battle, units)
    return True



# ---- the defender's losses -----------------------------------------------------------------------


def tied_highest(ctx: Ctx, battle: Battle, defenders: Sequence[str]) -> list[str]:
    halve = bool(battle.plan.get("halve"))
    top = max(defense_factor(ctx, u, halve) for u in defenders)
    return sorted(u for u in defenders if defense_factor(ctx, u, halve) == top)


def ask_first_loss(ctx: Ctx, battle: Battle, defenders: Sequence[str]) -> None:
    """8.354: at least one CP from the highest Defense Factor unit, attacker's choice on
    ties."""
    tied = tied_highest(ctx, battle, defenders)
    if len(tied) > 1 and battle.cp < capacity(ctx, defenders):
        options = sorted(tied, key=lambda u: (-(ctx.d(u).attack or 0), u))
        battle.stage = "tie"
        ctx.state.pending = PendingDecision(
            kind="tie", side=battle.side, rule="8.354",
            prompt=f"{len(tied)} defenders in {ctx.name(battle.area)} share the highest "
                   "Defense Factor: which must take the first Casualty Point?",
            options=tuple(Option(order=f"decide tie {u}", label=unit_label(ctx, u))
                          for u in options),
            default=f"decide tie {options[0]}",
            data={"area": battle.area, "units": options},
        )
        return
    battle.first_loss = tied[0]
    ask_casualties(ctx, battle)


def unit_label(ctx: Ctx, uid: str) -> str:
    d = ctx.d(uid)
    attack = "*" if d.attack is None else str(d.attack)
    factors = f"{attack}-{d.defense}-{d.mf}" if ctx.fresh(uid) else f"spent {d.spent_defense}"
    return f"{uid} {d.name or d.kind} {factors}".strip()


def ask_casualties(ctx: Ctx, battle: Battle) -> None:
    battle.stage = "casualties"
    defenders = [u for u in battle.defenders if ctx.loc(u) == battle.area]
    options: list[str] = []
    for policy in CASUALTY_POLICIES:
        text = FMT(allocate(ctx, battle, policy))
        if text not in options:
            options.append(text)
    default = options[0]
    side = other(battle.side)
    ctx.state.pending = PendingDecision(
        kind="casualties", side=side, rule="8.354",
        prompt=f"{battle.cp} Casualty Point(s) in {ctx.name(battle.area)}; at least one from "
               f"{battle.first_loss}. Disrupt (Fresh, 1), retreat (Spent 1, Fresh 2), "
               "eliminate (Spent 2, Fresh 3); voluntary retreats may be added",
        options=tuple(Option(order=o, label=o.removeprefix("decide casualties ")) for o in options),
        default=default,
        data={"area": battle.area, "cp": battle.cp, "first_loss": battle.first_loss,
              "group": defenders},
    )


def ask_voluntary(ctx: Ctx, battle: Battle, defenders: Sequence[str]) -> None:
    """8.3554: the defending Group may retreat voluntarily even without a CP."""
    side = other(battle.side)
    alive = [u for u in defenders if ctx.loc(u) == battle.area]
    if not alive or not retreat_options(ctx, side, battle.area, set())[0]:
        finish_battle(ctx)
        return
    battle.stage = "voluntary"
    every = FMT(Casualties(voluntary=tuple(alive)))
    ctx.state.pending = PendingDecision(
        kind="voluntary", side=side, rule="8.3554",
        prompt=f"the attack on {ctx.name(battle.area)} failed: retreat voluntarily "
               "(Duration +1), or stay?",
        options=(Option(order="decide casualties none", label="stay"),
                 Option(order=every, label="retreat the whole Group")),
        default="decide casualties none",
        data={"area": battle.area, "group": alive},
    )


CASUALTY_POLICIES = ("disrupt-first", "hold", "retreat")


def cp_value(ctx: Ctx, uid: str, action: str) -> int:
    """8.354 (the pack's ``casualty_points``): what ``action`` on ``uid`` pays — Disrupt a
    Fresh unit 1; retreat a Spent unit 1 (a Fresh one is Disrupted first: 1 + 1);
    eliminate a Spent unit 2, a Fresh one 3."""
    cp = ctx.board.tables.casualty_points
    fresh = ctx.fresh(uid)
    if action == "disrupt":
        return cp.disrupt_fresh if fresh else 0
    if action == "retreat":
        return cp.retreat_spent + (cp.disrupt_fresh if fresh else 0)
    if action == "eliminate":
        return cp.eliminate_fresh if fresh else cp.eliminate_spent
    return 0


def allocate(ctx: Ctx, battle: Battle, policy: str) -> Casualties:
    """A legal allocation of ``battle.cp`` by a standing policy.

    * ``disrupt-first``: Disrupt Fresh units (the first-loss unit first), then retreat,
      then eliminate the weakest — keeps units alive, may give ground.
    * ``hold``: Disrupt, then eliminate the weakest; never retreat.
    * ``retreat``: like ``disrupt-first``, and the rest of the Group retreats with them.
    """
    need = battle.cp
    area = battle.area
    units = [u for u in battle.defenders if ctx.loc(u) == area]
    first = battle.first_loss or units[0]
    halve = bool(battle.plan.get("halve"))
    order = [first, *sorted((u for u in units if u != first),
                            key=lambda u: (defense_factor(ctx, u, halve), u))]
    side = other(battle.side)
    can_retreat = policy != "hold" and bool(retreat_options(ctx, side, area, set())[0])
    ladders: dict[str, list[str]] = {}
    for u in units:
        if ctx.fresh(u):
            ladders[u] = ["none", "disrupt", "retreat", "eliminate"] if can_retreat \
                else ["none", "disrupt", "eliminate"]
        else:
            ladders[u] = ["none", "retreat", "eliminate"] if can_retreat else ["none", "eliminate"]
    rung = {u: 0 for u in units}

    def paid() -> int:
        return sum(cp_value(ctx, u, ladders[u][rung[u]]) for u in units)

    passes = 0
    while paid() < need:
        before = paid()
        # First pass: the first-loss unit, then the weakest; deeper passes: weakest first.
        for u in order if passes == 0 else [*order[1:], order[0]]:
            if rung[u] + 1 < len(ladders[u]):
                rung[u] += 1
            if paid() >= need:
                break
        passes += 1
        if paid() == before:
            break
    chosen = {u: ladders[u][rung[u]] for u in units}
    disrupt = tuple(u for u in units if chosen[u] == "disrupt")
    retreat = tuple(u for u in units if chosen[u] == "retreat")
    eliminate = tuple(u for u in units if chosen[u] == "eliminate")
    voluntary: tuple[str, ...] = ()
    if policy == "retreat" and can_retreat and retreat:
        voluntary = tuple(u for u in units if chosen[u] in ("none", "disrupt"))
    return Casualties(disrupt=disrupt, retreat=retreat, eliminate=eliminate, voluntary=voluntary)


def answer_tie(ctx: Ctx, unit: str) -> None:
    battle = ctx.state.battle
    pending = ctx.state.pending
    assert battle is not None and pending is not None
    uid = ctx.board.resolve_unit(unit)
    if uid not in pending.data["units"]:
        raise RuleError("8.354", f"{uid} is not one of the tied units", pending.option_orders())
    battle.first_loss = uid
    ctx.emit("tie", f"{battle.side} picks {uid} to take the first Casualty Point", "8.354",
             unit=uid)
    ask_casualties(ctx, battle)


def answer_casualties(ctx: Ctx, order: Casualties, dice: Dice) -> None:
    battle = ctx.state.battle
    assert battle is not None
    side = other(battle.side)
    area = battle.area
    group = [u for u in battle.defenders if ctx.loc(u) == area]

    def ids(values: tuple[str, ...]) -> list[str]:
        return ctx.own(side, values, "8.3541")

    disrupt, retreat, lost, voluntary = (ids(order.disrupt), ids(order.retreat),
                                         ids(order.eliminate), ids(order.voluntary))
    listed = [*disrupt, *retreat, *lost, *voluntary]
    for uid in listed:
        if uid not in group:
            raise RuleError("8.3541", f"{uid} is not in the attacked Group: all Casualty Points "
                            "come from the Group attacked", [FMT(allocate(ctx, battle, p))
                                                            for p in CASUALTY_POLICIES])
    if set(lost) & set(disrupt + retreat + voluntary):
        raise RuleError("8.354", "a unit eliminated to pay losses cannot also retreat")
    if set(retreat) & set(voluntary):
        raise RuleError("8.354", "a unit retreats once: list it under retreat or voluntary")
    spent_disrupt = [u for u in disrupt if not ctx.fresh(u)]
    if spent_disrupt:
        raise RuleError("8.354", f"only Fresh units can be Disrupted ({', '.join(spent_disrupt)})")
    cp = 0
    for uid in disrupt:
        cp += cp_value(ctx, uid, "disrupt") if uid not in retreat else 0
    for uid in retreat:
        cp += cp_value(ctx, uid, "retreat")
    for uid in lost:
        cp += cp_value(ctx, uid, "eliminate")
    need = battle.cp if battle.stage == "casualties" else 0
    legal = [FMT(allocate(ctx, battle, p)) for p in CASUALTY_POLICIES] if need else []
    if cp < need:
        raise RuleError("8.3541", f"that pays {cp} of {need} Casualty Points", legal)
    if need and battle.first_loss not in (*disrupt, *retreat, *lost):
        raise RuleError("8.354", f"at least one Casualty Point must come from "
                        f"{battle.first_loss}, the highest Defense Factor unit", legal)
    if not need and (disrupt or retreat or lost):
        raise RuleError("8.3554", "no Casualty Points are due: only voluntary retreats",
                        ["decide casualties none"])
    movers = sorted(set(retreat) | set(voluntary))
    dest: str | None = None
    if movers:
        choices, why = retreat_options(ctx, side, area, set())
        if order.to is not None:
            dest = ctx.area_key(order.to)
            if dest not in choices:
                raise RuleError("8.3551", f"{ctx.name(dest)} is not a legal retreat ({why})",
                                [f"to {c}" for c in choices])
        elif len(choices) == 1:
            dest = choices[0]
        elif not choices:
            dest = None
    # Apply the losses.
    for uid in lost:
        eliminate(ctx, uid, "8.354", "Casualty Points")
    penalties = ctx.board.tables.disruption
    for uid in disrupt:
        if uid not in retreat:
            ctx.disrupt(uid, penalties.defender_casualty)
    for uid in retreat:
        ctx.disrupt(uid, penalties.defender_casualty)  # 8.354 / 10.5: CP paid
    for uid in voluntary:
        if ctx.fresh(uid):
            ctx.disrupt(uid, penalties.voluntary_retreat)  # 10.5: Fresh units retreating
        else:
            ctx.extend(uid, penalties.voluntary_retreat)  # 8.3554: one more date (10.8)
    ctx.emit("casualties", f"{side} pays {cp} CP in {ctx.name(area)}: {FMT(order)}", "8.354",
             area=area, cp=cp, disrupt=disrupt, retreat=retreat, eliminate=lost,
             voluntary=voluntary)
    if not movers:
        finish_battle(ctx)
        return
    battle.plan["movers"] = movers
    if dest is None:
        choices, _ = retreat_options(ctx, side, area, set())
        if not choices:
            for uid in movers:
                eliminate(ctx, uid, "8.355", "no Area open to retreat")
            finish_battle(ctx)
            return
        battle.stage = "retreat"
        ctx.state.pending = PendingDecision(
            kind="retreat", side=side, rule="8.3551",
            prompt=f"retreat {', '.join(movers)} from {ctx.name(area)}: the priorities leave a "
                   "choice",
            options=tuple(Option(order=f"decide retreat {c}", label=ctx.name(c))
                          for c in choices),
            default=f"decide retreat {choices[0]}",
            data={"area": area, "units": movers, "choices": choices},
        )
        return
    if do_retreat(ctx, side, movers, area, dest, dice):
        finish_battle(ctx)


def answer_retreat(ctx: Ctx, area_text: str, dice: Dice) -> None:
    battle = ctx.state.battle
    pending = ctx.state.pending
    assert battle is not None and pending is not None
    dest = ctx.area_key(area_text)
    if dest not in pending.data["choices"]:
        raise RuleError("8.3551", f"{ctx.name(dest)} is not a legal retreat",
                        pending.option_orders())
    side = other(battle.side)
    src = str(pending.data.get("from", battle.area))
    visited = {str(v) for v in pending.data.get("visited", [])}
    ctx.state.pending = None
    if do_retreat(ctx, side, list(pending.data["units"]), src, dest, dice, visited):
        finish_battle(ctx)


def answer_overflow(ctx: Ctx, units: tuple[str, ...], dice: Dice) -> None:
    """8.3553: the owner names the units that continue the retreat; the rest stay."""
    battle = ctx.state.battle
    pending = ctx.state.pending
    assert battle is not None and pending is not None
    side = other(battle.side)
    group = [str(u) for u in pending.data["units"]]
    going = ctx.own(side, units, "8.3553")
    need = len(group) - int(pending.data["stay"])
    strays = [u for u in going if u not in group]
    if strays or len(set(going)) != need:
        raise RuleError("8.3553", f"name exactly {need} of {', '.join(group)} to continue the "
                        f"retreat (the maximum number must stay)", pending.option_orders())
    area = str(pending.data["area"])
    staying = [u for u in group if u not in going]
    ctx.state.pending = None
    ctx.emit("retreat", f"{', '.join(staying)} stay(s) in {ctx.name(area)}; "
             f"{', '.join(sorted(going))} continue(s) the retreat", "8.3553", units=staying,
             area=area, going=sorted(going))
    visited = {str(v) for v in pending.data["visited"]}
    if continue_retreat(ctx, side, sorted(going), area, dice, visited):
        finish_battle(ctx)


# ---- retreats ------------------------------------------------------------------------------------


def retreat_options(ctx: Ctx, side: str, src: str, visited: set[str]) -> tuple[list[str], str]:
    """Areas open to a retreat from ``src``, best priority only (8.3551, in the order of the
    pack's ``retreat_priority``; among Free Areas, those next to the fewest enemy-controlled
    Areas)."""
    enemy = other(side)
    priority = ctx.board.tables.retreat_priority
    ranked: list[tuple[tuple[int, int], str]] = []
    for key in sorted(ctx.board.adjacent(src)):
        if key in visited or key == src:
            continue
        has_enemy = ctx.enemy(key, side)
        has_friend = bool(ctx.combat(key, side))
        mine = ctx.controller(key) == side
        around = 0
        if mine and not has_enemy:
            kind = "free_least_enemy_adjacent"
            around = sum(1 for n in ctx.board.adjacent(key) if ctx.controller(n) == enemy)
        elif mine and has_enemy and has_friend:
            kind = "friendly_contested"
        elif not mine and has_enemy and has_friend:
            kind = "enemy_contested"
        elif not mine and not has_enemy:
            kind = "vacant_enemy_controlled"
        else:
            continue
        ranked.append(((priority.order.index(kind), around), key))
    if not ranked:
        return [], "no Area is open to retreat"
    best = min(rank for rank, _ in ranked)
    return ([key for rank, key in ranked if rank == best],
            f"priority {chr(ord('A') + best[0])}: {priority.text[best[0]]}")


def do_retreat(ctx: Ctx, side: str, movers: list[str], src: str, dest: str, dice: Dice,
               visited: set[str] | None = None) -> bool:
    """Move a retreating Group (8.3553 unison) and roll its dangers (14.5, 8.3552).

    Returns False when a decision was left pending (which units continue out of a full
    Area, 8.3553; where a continued retreat goes, 8.3551), True when the retreat is over.
    """
    visited = set(visited or ()) | {src}
    survivors: list[str] = []
    enemies = len(ctx.combat(dest, other(side)))
    for uid in sorted(movers):
        if ctx.loc(uid) != src:
            continue
        level = ctx.state.rubble.get(dest, 0)
        if level and ctx.d(uid).mechanized:
            drm = rubble_drm(ctx, side, dest)
            roll = dice.roll(f"Rubble Entrance DR ({uid} retreating into {dest})")
            need = rubble_need(ctx, level)
            failed = roll.total + drm < need
            offer_reroll(ctx, dice, roll, loser=side if failed else other(side))
            if failed:
                eliminate(ctx, uid, "14.5", f"failed Rubble Entrance DR {roll.total}+{drm}")
                continue
        if enemies:
            friendly = ctx.controller(dest) == side
            roll = dice.roll(f"Contested retreat {'DR' if friendly else 'dr'} ({uid} into {dest})",
                             count=2 if friendly else 1)
            lost = roll.total <= enemies
            offer_reroll(ctx, dice, roll, loser=side if lost else other(side))
            if lost:
                eliminate(ctx, uid, "8.3552", f"Contested retreat roll {roll.total} <= {enemies}")
                continue
        survivors.append(uid)
    room = len(survivors) if ctx.zone(dest) \
        else max(0, ctx.board.max_stack - len(ctx.combat(dest, side)))
    # 7.1: the limit may be exceeded while a retreat passes through an Area.
    for uid in survivors:
        ctx.place(uid, dest)
    update_control(ctx, src)
    update_control(ctx, dest)
    if not survivors:
        return True
    if len(survivors) <= room:
        ctx.emit("retreat", f"{', '.join(survivors)} retreat(s) from {ctx.name(src)} to "
                 f"{ctx.name(dest)}", "8.355", units=survivors, area=dest, **{"from": src})
        return True
    visited.add(dest)
    if room == 0:
        ctx.emit("retreat", f"{', '.join(survivors)} retreat(s) through {ctx.name(dest)}, "
                 "already holding ten", "8.355", units=[], area=dest, going=survivors,
                 **{"from": src})
        return continue_retreat(ctx, side, survivors, dest, dice, visited)
    ctx.emit("retreat", f"{', '.join(survivors)} retreat(s) from {ctx.name(src)} to "
             f"{ctx.name(dest)}, which has room for {room}", "8.3553", units=survivors,
             area=dest, **{"from": src})
    ask_overflow(ctx, side, survivors, dest, room, visited)
    return False


def overflow_choices(ctx: Ctx, units: Sequence[str], stay: int) -> tuple[list[str], list[str]]:
    """(strongest stay, weakest stay): the units that continue under each standing policy."""
    ranked = sorted(units, key=lambda u: (-defense_factor(ctx, u, False), u))
    going = len(units) - stay
    return sorted(ranked[stay:]), sorted(ranked[:going])


def ask_overflow(ctx: Ctx, side: str, units: list[str], area: str, stay: int,
                 visited: set[str]) -> None:
    """8.3553: the maximum number stay; the owner chooses which continue."""
    strongest, weakest = overflow_choices(ctx, units, stay)
    options = [Option(order=FMT(Overflow(units=tuple(strongest))),
                      label="the strongest stay (the default)")]
    if weakest != strongest:
        options.append(Option(order=FMT(Overflow(units=tuple(weakest))),
                              label="the weakest stay"))
    ctx.state.pending = PendingDecision(
        kind="overflow", side=side, rule="8.3553",
        prompt=f"{ctx.name(area)} has room for {stay} of the {len(units)} retreating units "
               f"({', '.join(units)}): name the {len(units) - stay} that continue the retreat",
        options=tuple(options), default=options[0].order,
        data={"area": area, "units": units, "stay": stay, "visited": sorted(visited)},
    )


def continue_retreat(ctx: Ctx, side: str, going: list[str], here: str, dice: Dice,
                     visited: set[str]) -> bool:
    """8.355: units that may not stop in a full Area retreat on, never re-entering an Area
    of this retreat, by the same priorities (8.3551) — the owner's choice on ties."""
    choices, why = retreat_options(ctx, side, here, visited)
    if not choices:
        for uid in going:
            eliminate(ctx, uid, "8.355", "no Area open to continue the retreat")
        return True
    if len(choices) == 1:
        return do_retreat(ctx, side, going, here, choices[0], dice, visited)
    ctx.state.pending = PendingDecision(
        kind="retreat", side=side, rule="8.3551",
        prompt=f"{', '.join(going)} continue the retreat from {ctx.name(here)} ({why}): "
               "the priorities leave a choice",
        options=tuple(Option(order=f"decide retreat {c}", label=ctx.name(c)) for c in choices),
        default=f"decide retreat {choices[0]}",
        data={"area": here, "from": here, "units": going, "choices": choices,
              "visited": sorted(visited)},
    )
    return False


def drop_dead(ctx: Ctx, units: Sequence[str]) -> list[str]:
    return [u for u in units if ctx.loc(u) != DEAD]


# ---- the decisions of a battle's losses, with their standing orders ------------------------


def _casualties_standing(ctx: Ctx, decision: PendingDecision, policy: str) -> str | None:
    """8.354: a casualties policy allocates the whole loss (:func:`allocate`)."""
    battle = ctx.state.battle
    return None if battle is None else Notation.format(allocate(ctx, battle, policy))


def _default_answer(ctx: Ctx, decision: PendingDecision, policy: str) -> str | None:
    return decision.default


def _last_unless(policy_for_last: str) -> Standing[Ctx]:
    """The decision's last option under ``policy_for_last``, its default otherwise."""
    def answer(ctx: Ctx, decision: PendingDecision, policy: str) -> str | None:
        return decision.options[-1].order if policy == policy_for_last else decision.default
    return answer


CASUALTIES: Decision[Ctx] = Decision(
    kind="casualties", verb="decide casualties", rule="8.354", answers=(Casualties,),
    apply=lambda ctx, side, order, dice: answer_casualties(ctx, cast(Casualties, order), dice),
    policies=(
        ("disrupt-first",
         "Disrupt Fresh units first, then retreat, then eliminate the weakest (the default)"),
        ("hold", "never retreat: Disrupt, then eliminate the weakest"),
        ("retreat", "pay as disrupt-first and retreat the whole Group"),
    ), standing=_casualties_standing)

VOLUNTARY: Decision[Ctx] = Decision(
    kind="voluntary", verb="decide casualties", rule="8.3554", answers=(Casualties,),
    apply=CASUALTIES.apply,
    policies=(
        ("never", "stay after a failed attack (the default: you are not asked)"),
        ("always", "retreat the whole Group after a failed attack"),
        ("ask", "ask me after each failed attack"),
    ), automatic="never",
    standing=lambda ctx, decision, policy: (decision.default if policy == "never"
                                            else decision.options[-1].order))

TIE: Decision[Ctx] = Decision(
    kind="tie", verb="decide tie", rule="8.354", answers=(Tie,),
    apply=lambda ctx, side, order, dice: answer_tie(ctx, cast(Tie, order).unit),
    policies=(("strongest",
               "the tied unit with the highest Attack Factor loses first (the default)"),),
    standing=_default_answer)

RETREAT: Decision[Ctx] = Decision(
    kind="retreat", verb="decide retreat", rule="8.3551", answers=(RetreatTo,),
    apply=lambda ctx, side, order, dice: answer_retreat(ctx, cast(RetreatTo, order).area,
                                                        dice),
    policies=(("first", "the first Area the priorities allow (the default)"),),
    standing=_default_answer)

OVERFLOW: Decision[Ctx] = Decision(
    kind="overflow", verb="decide overflow", rule="8.3553", answers=(Overflow,),
    apply=lambda ctx, side, order, dice: answer_overflow(ctx, cast(Overflow, order).units,
                                                         dice),
    policies=(
        ("strongest-stay",
         "when a retreat overfills an Area, the strongest units stay and the weakest retreat "
         "on (the default)"),
        ("weakest-stay",
         "when a retreat overfills an Area, the weakest units stay and the strongest retreat "
         "on"),
    ), standing=_last_unless("weakest-stay"))
