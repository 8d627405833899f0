"""A Stalin's Tanks scenario's briefing (25.1-25.7), assembled from the pack: the goals and
extra special rules of ``briefings.toml``, and what ``scenarios.toml`` states already (turns,
who moves first, victory points and levels, set-up, hidden units, mines, entries, artillery
and the scenario's own special rules). See :mod:`adjudicator.kernel.briefing`."""

from __future__ import annotations

from adjudicator.kernel.briefing import Briefing, SpecialRule
from adjudicator.tanks.data_models import TanksPack
from adjudicator.tanks.data_models.scenarios import Level, Scenario, Victory

#: The rules the features of a scenario come from: hidden placement (20.0), mines (19.0).
HIDDEN_RULE = "20.0"
MINES_RULE = "19.0"
ARTILLERY_RULE = "18.0"


def scenario_briefing(pack: TanksPack, key: str, game: str) -> Briefing:
    sc = pack.scenarios[key]
    notes = pack.briefings[key]
    return Briefing(
        game=game, scenario=key, title=sc.title, rule=sc.section, summary=sc.description,
        length=f"{sc.turns} turns ({sc.level} rules); the "
               f"{sc.first_player.value.capitalize()} player moves first",
        goals=notes.goals, victory=victory_lines(sc.victory), special=[
            *special_rules(sc), *notes.special], features=features(sc))


def features(sc: Scenario) -> list[str]:
    """Which of the kernel's FEATURES the scenario has, each with its rule."""
    out = []
    if any(h.mode == "hidden" for h in sc.hidden):
        out.append(f"hidden units ({HIDDEN_RULE})")
    if sc.mines:
        out.append(f"mines ({MINES_RULE})")
    if any(h.mode == "face-down" for h in sc.hidden) or any(s.face_down for s in sc.setup):
        out.append(f"face-down set-up ({sc.section})")
    return out


def special_rules(sc: Scenario) -> list[SpecialRule]:
    """The scenario's set-up, hidden units, mines, entries, artillery and special rules as the
    pack words them, each under its rule number."""
    rules = [SpecialRule(rule=sc.section, text=s.text) for s in sc.setup]
    for hidden in sc.hidden:
        if hidden.mode != "hidden":
            rules.append(SpecialRule(rule=sc.section, text=hidden.text))
        else:
            rules.append(SpecialRule(rule=f"{sc.section}, {HIDDEN_RULE}", text=hidden.text))
            reveal = hidden.reveal.removeprefix("rulebook ")
            rule, _, when = reveal.partition(": ")
            rules.append(SpecialRule(rule=rule, text=f"a hidden unit is revealed {when}"))
    rules += [SpecialRule(rule=f"{sc.section}, {MINES_RULE}", text=m.text) for m in sc.mines]
    rules += [SpecialRule(rule=sc.section, text=e.text) for e in sc.entry]
    by_text: dict[str, list[str]] = {}
    for art in sc.artillery:  # one line for allotments worded alike ("each side gets...")
        by_text.setdefault(art.text, []).append(art.side.value.capitalize())
    rules += [SpecialRule(rule=f"{sc.section}, {ARTILLERY_RULE}",
                          text=f"{' and '.join(sides)}: {text}")
              for text, sides in by_text.items()]
    rules += [SpecialRule(rule=sc.section, text=s.text) for s in sc.special]
    return rules


def victory_lines(victory: Victory) -> list[str]:
    """The victory conditions: the pack's text, then the levels and the tie rule."""
    lines = [victory.text]
    if victory.level:
        score = (victory.score or "").replace("-minus-", " minus ").capitalize()
        levels = sorted(victory.level, key=lambda lv: -(lv.min if lv.min is not None
                                                        else -10**9))
        lines.append(f"{score} points: " + "; ".join(_level(lv) for lv in levels))
    if victory.tie is not None:
        lines.append("a tie: " + ("a draw" if victory.tie == "draw"
                                  else f"the {victory.tie.capitalize()} player wins"))
    return lines


def _level(level: Level) -> str:
    if level.min is None and level.max == 0:
        span = "0"
    elif level.min is None:
        span = f"{level.max} or less"
    elif level.max is None:
        span = f"{level.min} or more"
    elif level.min == level.max:
        span = str(level.min)
    else:
        span = f"{level.min}-{level.max}"
    if level.winner is None:
        return f"{span} draw"
    degree = "" if level.degree == "victory" else f"{level.degree} "
    return f"{span} {degree}{level.winner.value.capitalize()} victory"
