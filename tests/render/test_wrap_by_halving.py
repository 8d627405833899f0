"""The word wrap of the pictures' texts (keys, captions, the panel) finds each line's
longest run of words by halving (issue 26: text measured anew costs a FreeType layout):
the lines of the greedy wrap that measures every word added, at every size and width."""

from __future__ import annotations

import random

import pytest

from render.common import text_size, wrap

TEXT = ("Nov 12 1942 — day night impulse 4 (german) attack on 52: 19:11 8 CP, Overrun "
        "I/267 II/104 PzJg40 K4 x3 x6 Zone A B 1104TD Wé ïj W. ,;: WWWW iiii f/ff T. Ty AV "
        "Fresh Spent → ≤ 11.4 7/2 ... and more lines in the full map")
WORDS = TEXT.split(" ")


def greedy(text: str, size: int, width: int) -> list[str]:
    """Each paragraph's words added one by one, measuring each trial line."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current = ""
        for word in paragraph.split():
            trial = f"{current} {word}".strip()
            if current and text_size(trial, size)[0] > width:
                lines.append(current)
                current = word
            else:
                current = trial
        lines.append(current)
    return lines


@pytest.mark.parametrize("seed", range(4))
def test_wrapping_by_halving_is_the_greedy_wrap(seed: int) -> None:
    rnd = random.Random(seed)
    wrapped = 0
    for _ in range(250):
        text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(0, 30)))
        if rnd.random() < 0.2:
            text = text.replace(" ", "\n", 2)
        if rnd.random() < 0.1:
            text = f"  {text}  \n\n"
        size, width = rnd.choice([7, 9, 11, 13, 17, 24]), rnd.randrange(4, 700)
        lines = wrap(text, size, width)
        assert lines == greedy(text, size, width), (text, size, width)
        wrapped += len(lines) > len(text.split("\n"))
    assert wrapped > 50  # most texts were cut into lines, not only kept whole
