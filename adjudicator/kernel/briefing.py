"""A scenario's briefing: who fights, for how long, what wins, what is special about it.

Both games' data packs hold a ``briefings.toml`` with one ``[[briefing]]`` per scenario
(:class:`BriefingNotes`): what each side must do in a few words, and special rules the rest
of the pack does not already state, each with its rule number. A game assembles the
:class:`Briefing` from those notes and from what its pack states anyway (turns, victory
thresholds, set-up, entry, which features the scenario has), so no number is written twice.

A briefing comes from the scenario, never from a game's state: it names no hidden unit's
hex, no mine and no secret bid, and anyone may read it.

>>> Briefing(game="Duel", scenario="s", title="Skirmish", rule="1", summary="a test",
...          length="3 turns", goals={"red": "hold the hill"}, victory=["most units"],
...          special=[SpecialRule(rule="2.1", text="no retreats")],
...          features=[]).text().splitlines()[0]
'Skirmish (1) — Duel'
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.packs import PackFiles, Record, Sourced

FILE = "briefings.toml"

#: What a player wants to know before a scenario starts; a briefing lists the ones it has.
FEATURES = ("hidden units", "mines", "face-down set-up", "bids")


class SpecialRule(Record):
    """One special rule of a scenario: the rule number(s) it comes from, and what it says."""

    rule: str = Field(min_length=1)
    text: str = Field(min_length=1)


class BriefingNotes(Sourced):
    """One record of ``briefings.toml``: a scenario's goals per side and its special rules
    (those the scenario's own records do not state already)."""

    scenario: str
    goals: dict[str, str] = Field(min_length=1)
    special: list[SpecialRule] = Field(default_factory=list)


class BriefingsFile(Record):
    briefing: list[BriefingNotes] = Field(min_length=1)


def read_briefings(read: PackFiles, scenarios: Iterable[str], sides: Iterable[str]
                   ) -> dict[str, BriefingNotes]:
    """``briefings.toml`` of a pack by scenario key; a problem in ``read`` for a scenario
    without a briefing, a briefing of no scenario, one given twice, or goals that do not
    name exactly the game's sides."""
    raw = read.toml(FILE)
    if raw is None:
        return {}
    parsed = read.validate(BriefingsFile, raw, FILE)
    if parsed is None:
        return {}
    known, wanted = list(scenarios), set(sides)
    out: dict[str, BriefingNotes] = {}
    for notes in parsed.briefing:
        where = f"{FILE}: {notes.scenario}"
        if notes.scenario in out:
            read.problems.append(f"{where}: briefing given twice")
        elif notes.scenario not in known:
            read.problems.append(f"{where}: no such scenario (known: {', '.join(known)})")
        if set(notes.goals) != wanted:
            read.problems.append(f"{where}: goals must name the sides {', '.join(sorted(wanted))}"
                                 f", not {', '.join(sorted(notes.goals))}")
        out[notes.scenario] = notes
    read.problems.extend(f"{FILE}: {key}: the scenario has no briefing"
                         for key in known if key not in out)
    return out


class Briefing(BaseModel):
    """What a player reads before a scenario: assembled by the game from its pack."""

    model_config = ConfigDict(frozen=True)

    game: str
    scenario: str
    title: str
    #: the rule (section) the scenario is described in
    rule: str
    summary: str
    #: how long it lasts and who moves first, e.g. "6 turns; the soviet player moves first"
    length: str
    goals: dict[str, str]
    victory: list[str]
    special: list[SpecialRule]
    #: which of :data:`FEATURES` it has, each with its rule ("mines (19.0)")
    features: list[str]

    def text(self) -> str:
        """The briefing in a few lines, for the console, a reply or an email."""
        lines = [f"{self.title} ({self.rule}) — {self.game}", f"  {self.summary}",
                 f"  Length: {self.length}"]
        lines += [f"  {side.capitalize()}: {goal}" for side, goal in self.goals.items()]
        if self.victory:
            lines.append("  Victory: " + self.victory[0])
            lines += [f"           {line}" for line in self.victory[1:]]
        if self.special:
            lines.append("  Special rules:")
            lines += [f"    {rule.rule}: {rule.text}" for rule in self.special]
        lines.append("  Features: " + (", ".join(self.features) if self.features else
                                       "none (no " + ", ".join(FEATURES[:-1]) + " or "
                                       + FEATURES[-1] + ")"))
        return "\n".join(lines)

    def feature_names(self) -> list[str]:
        """The features without their rule numbers ("mines", "hidden units")."""
        return [name for name in FEATURES if any(f.startswith(name) for f in self.features)]
