"""A Turning Point: Stalingrad scenario's briefing, assembled from the pack: the goals and
special rules of ``briefings.toml``, and what the rest of the pack states already (dates,
weeks, the blue or red Victory Point numbers, 28 VP, the initial Rubble Areas, September 13's
fixed impulses, the optional rules). See :mod:`adjudicator.kernel.briefing`."""

from __future__ import annotations

from adjudicator.kernel.briefing import Briefing, SpecialRule
from adjudicator.stalingrad.data_models import StalingradPack
from adjudicator.stalingrad.data_models.calendar import Week
from adjudicator.stalingrad.data_models.scenarios import Scenario

#: 22.1: the optional rule whose secret bids decide who plays the German.
BIDS_RULE = "22.1"


def scenario_briefing(pack: StalingradPack, key: str, game: str) -> Briefing:
    sc = pack.scenarios[key]
    notes = pack.briefings[key]
    weeks = [w for w in pack.calendar.weeks if sc.start <= w.end and w.start <= sc.end]
    plural = "s" * (len(weeks) != 1)
    length = (f"{sc.start:%B} {sc.start.day} to {sc.end:%B} {sc.end.day}, {sc.end.year} "
              f"({len(weeks)} week{plural}, scored at each week's end, 6.4); the German takes "
              "the first impulse (6.1)")
    bids = any(o.rule == BIDS_RULE for o in sc.options)
    rule = sc.source.removeprefix("rulebook ")
    return Briefing(
        game=game, scenario=key, title=sc.name, rule="Sawmill" if rule in sc.name else rule,
        summary=sc.description, length=length, goals=notes.goals,
        victory=victory_lines(pack, sc, weeks), special=[*special_rules(sc), *notes.special],
        features=[f"bids ({BIDS_RULE}, optional)"] if bids else [])


def victory_lines(pack: StalingradPack, sc: Scenario, weeks: list[Week]) -> list[str]:
    """The Victory Point numbers of the scenario's weeks (19.2 blue, 21.1 red) or its own
    target, and how a tie at the last week is settled."""
    scored = weeks
    lines = []
    if sc.victory == "blue":
        lines.append(f"19.2: at each week's end the German wins above the blue number, loses "
                     f"below it, plays on when equal (of {pack.total_vp()} VP)")
        lines.append("blue numbers: " + ", ".join(f"week {w.number} {w.blue}" for w in scored))
    elif sc.victory == "red":
        lines.append(f"21.1: at each week's end the German wins above the red range, loses "
                     f"below it, plays on within it (of {pack.total_vp()} VP)")
        lines.append("red ranges: " + ", ".join(f"week {w.number} {w.red[0]}-{w.red[1]}"
                                                for w in scored))
    else:
        lines.append(f"the German wins with {sc.victory_vp} Victory Points at the end of "
                     "the week; otherwise the Russian wins")
    tie = {"tie_breaker": "an equal total at the last week goes to the Tie Breaker (19.3)",
           "russian": "an equal or lower total is a Russian win",
           "draw": "an equal total at the last week is a draw"}[sc.final_tie]
    lines.append(tie)
    return lines


def special_rules(sc: Scenario) -> list[SpecialRule]:
    """September 13 (20), the initial Rubble (5.7), the rules the scenario requires and the
    optional ones it allows, with the numbers the pack gives."""
    rules = []
    if sc.sept13_fixed_day_impulses is not None:
        rules.append(SpecialRule(rule="20.2-20.4", text=(
            f"September 13: the first {sc.sept13_fixed_day_impulses} German daylight impulses "
            "need no impulse DR; the Advantage may not prolong that daylight; the German may "
            "open with a bombardment")))
    if sc.sept13_automatic_sunset_after is not None:
        rules.append(SpecialRule(rule="Sawmill 4", text=(
            f"each German impulse moves the Impulse marker {sc.impulse_advance} spaces, never "
            f"past space {sc.impulse_max}; September 13's Sunset comes after the German "
            f"impulse on space {sc.sept13_automatic_sunset_after}")))
    rules.append(SpecialRule(rule="5.7", text="the German rolls for initial Rubble in Areas "
                             + ", ".join(map(str, sc.rubble_roll_areas))))
    required = [o for o in sc.options if o.required]
    optional = [o for o in sc.options if not o.required]
    if required:
        rules.append(SpecialRule(rule=", ".join(o.rule for o in required), text="in force: "
                                 + ", ".join(o.name for o in required)))
    if optional:
        rules.append(SpecialRule(rule="options", text="may be added: " + ", ".join(
            f"{o.rule} {o.name}" for o in optional)))
    return rules
