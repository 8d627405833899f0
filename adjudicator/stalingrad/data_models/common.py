"""What the Turning Point: Stalingrad pack files share: field types, date codes, provenance.

Every record keeps its provenance (:class:`adjudicator.kernel.packs.Sourced`): ``source`` is
``"rulebook <sections>"`` or ``"reconstructed: <one-line reason>"``, and ``field_sources``
gives a field whose value has another source its own, e.g. ``field_sources = { tem =
"rulebook Players Notes Example 3" }`` in a reconstructed Area.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from adjudicator.kernel import packs
from adjudicator.stalingrad.sides import SIDES, Side

__all__ = [
    "QUADRANT_KEYS",
    "SIDES",
    "Colour",
    "IdShape",
    "Point",
    "QuadrantKey",
    "Side",
    "Sourced",
    "Supply",
    "check_date_code",
    "date_code",
    "parse_date_code",
]

QuadrantKey = Literal["north", "north-central", "south-central", "south"]
QUADRANT_KEYS: tuple[QuadrantKey, ...] = ("north", "north-central", "south-central", "south")
IdShape = Literal["circle", "square", "triangle"]
Supply = Literal["german", "russian", "none"]
Point = tuple[float, float]
Colour = Annotated[str, Field(pattern=r"^[a-z]+$")]

DATE_CODE_RE = re.compile(r"^([SON])(\d{1,2})$")
MONTHS = {"S": 9, "O": 10, "N": 11}


def parse_date_code(code: str, year: int) -> date:
    """A counter's date code ("S15" = September 15th, 5.4; "O4", "N9") as a date of
    ``year``, the year of the pack's Turn Record Track (``calendar.first``, 5.1)."""
    m = DATE_CODE_RE.match(code)
    if not m:
        raise ValueError(f"date code {code!r} is not S/O/N followed by a day, like 'S15'")
    return date(year, MONTHS[m.group(1)], int(m.group(2)))


def check_date_code(code: str) -> None:
    """Raise ``ValueError`` unless ``code`` is a date code naming a real day of its month
    (in any year: September, October and November have no leap day)."""
    parse_date_code(code, date.min.year)


def date_code(day: date) -> str:
    """Inverse of :func:`parse_date_code`: date(1942, 9, 15) -> "S15"."""
    letter = {9: "S", 10: "O", 11: "N"}[day.month]
    return f"{letter}{day.day}"


class Sourced(packs.Sourced):
    """A record of this pack, with its provenance.

    Packs written before provenance had one form in every game cited the rulebook per field
    as ``rulebook = { tem = "Players Notes Example 3" }``; such a table is read as the
    ``field_sources`` it means, so a GM's older pack (and a game stored with it) still loads.
    """

    @model_validator(mode="before")
    @classmethod
    def _older_rulebook_table(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("rulebook"), dict):
            data = dict(data)
            cited = data.pop("rulebook")
            older = {name: f"rulebook {text}" for name, text in cited.items()}
            given = data.get("field_sources")
            data["field_sources"] = {**older, **given} if isinstance(given, dict) else older
        return data
