"""The leak scan passes over a text that lacks a secret's literal parts without running its
pattern (``leaks.Needle``): it must find exactly what the pattern alone finds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.redteam import leaks

SIDES = ["german", "soviet"]
PIECES = ["0412", "G7", "soviet", "german", "standing defensive-fire hold", " (yours now)",
          '"standing": {', '"defensive-fire": "hold"', '"side": "soviet"', ": ", " ", "\n",
          "-", "x", "{", "}"]


def needles() -> list[leaks.Needle]:
    return [leaks._pattern("0412"), leaks._pattern("G7@0412"),
            leaks._attributed("soviet", "standing defensive-fire hold", SIDES),
            *leaks._standing_patterns("soviet", "defensive-fire", "hold", SIDES)]


@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
def test_a_needle_finds_what_its_pattern_finds(text: str) -> None:
    for needle in needles():
        assert bool(needle.search(text)) == bool(needle.pattern.search(text)), (
            needle.pattern.pattern, text)


def test_each_needle_matches_a_text_that_says_its_secret() -> None:
    """Positive controls: the literals do not hide a match."""
    said = ['the hidden unit at 0412', 'G7 moved ... to 0412',
            'soviet: standing defensive-fire hold', 'soviet: standing defensive-fire hold',
            'soviet: standing order defensive-fire = hold',
            'standing defensive-fire hold (yours now)',
            '{"standing": {"defensive-fire": "hold"}}']
    for needle, text in zip(needles(), said, strict=True):
        assert needle.search(text), (needle.pattern.pattern, text)
