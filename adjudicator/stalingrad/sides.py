"""The two sides of Turning Point: Stalingrad, named once for the rules, the pack and pictures.

>>> other(GERMAN)
'russian'
"""

from __future__ import annotations

from typing import Final, Literal

Side = Literal["german", "russian"]
GERMAN: Final = "german"
RUSSIAN: Final = "russian"
SIDES: tuple[Side, Side] = (GERMAN, RUSSIAN)


def other(side: str) -> str:
    """The opposing side."""
    return RUSSIAN if side == GERMAN else GERMAN
