"""The two sides of Stalin's Tanks, named once for the rules, the pack and pictures.

>>> other(GERMAN)
'soviet'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Side(StrEnum):
    GERMAN = "german"
    SOVIET = "soviet"


GERMAN: Final = Side.GERMAN.value
SOVIET: Final = Side.SOVIET.value
SIDES: tuple[str, str] = (GERMAN, SOVIET)


def other(side: str) -> str:
    """The opposing side."""
    return SOVIET if side == GERMAN else GERMAN
