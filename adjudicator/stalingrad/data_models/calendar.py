"""calendar.toml: the Turn Record Track (3.4), its weeks and Victory Point numbers, and every
value that changes with the date (strengths, Impulse Track boxes)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from pydantic import Field, model_validator

from adjudicator.stalingrad.data_models.common import Sourced


class Week(Sourced):
    """A week of seven Game Turns (6.1, 6.4) with its Victory Point numbers.

    ``blue`` decides the Basic Game (19.2): German total < blue loses, > blue wins, = goes on.
    ``red`` is the inclusive range of the Long Game (21.1): inside it the game goes on.
    ``tie_breaker`` is the small black number of 19.3.
    """

    number: int = Field(ge=1)
    start: date
    end: date
    blue: int = Field(ge=0)
    red: tuple[int, int]
    tie_breaker: int

    @model_validator(mode="after")
    def _shape(self) -> Week:
        if (self.end - self.start).days != 6:
            raise ValueError("a week is seven Game Turns (6.1)")
        if self.red[0] > self.red[1]:
            raise ValueError("red range is (low, high)")
        return self


class Step(Sourced):
    """A value that holds from ``start`` until the next step (strengths by date)."""

    start: date
    value: int


class Daylight(Sourced):
    """Impulse Track start boxes from ``start`` (6.31, 6.32; 21.4 when ``option`` is set)."""

    start: date
    day_start: int = Field(ge=1, le=12)
    night_start: int = Field(ge=1, le=12)
    option: str | None = None


class Calendar(Sourced):
    """The Turn Record Track (3.4) and everything that changes with the date."""

    first: date
    last: date
    base_counters_until: date  # 21.1: no counters past the third week without the extension
    weeks: tuple[Week, ...]
    luftwaffe: tuple[Step, ...]  # 4.26, 17.23
    fag: tuple[Step, ...]  # 15.3
    german_dv_bonus: tuple[Step, ...]  # 8.352F
    interdiction: tuple[Step, ...]  # 18.4 month penalty
    daylight: tuple[Daylight, ...]

    def dates(self) -> list[date]:
        n = (self.last - self.first).days + 1
        return [date.fromordinal(self.first.toordinal() + i) for i in range(n)]

    def turn(self, day: date) -> int:
        """Game Turn number, 1 = September 13."""
        return (day - self.first).days + 1

    def week_of(self, day: date) -> Week:
        for week in self.weeks:
            if week.start <= day <= week.end:
                return week
        raise KeyError(f"{day} is not on the Turn Record Track")

    @staticmethod
    def _step(steps: Iterable[Step], day: date) -> int:
        value: int | None = None
        for step in steps:
            if step.start <= day:
                value = step.value
        if value is None:
            raise KeyError(f"no value before {day}")
        return value

    def luftwaffe_attack(self, day: date) -> int:
        """4.26/17.23: 8 through Sept 26, 5 from Sept 27, 9 from Oct 14."""
        return self._step(self.luftwaffe, day)

    def fag_strength(self, day: date) -> int:
        """15.3: Russian Artillery 1 before Sept 27, 2 through Oct 31, 3 thereafter."""
        return self._step(self.fag, day)

    def german_impulse_dv_bonus(self, day: date) -> int:
        """8.352F: +1 Sept 27-Oct 31, +2 Nov 1-Nov 14 to the DV in German impulses."""
        return self._step(self.german_dv_bonus, day)

    def interdiction_penalty(self, day: date) -> int:
        """18.4: -1 Interdiction Point in October, -2 in November (as a negative number)."""
        return self._step(self.interdiction, day)

    def daylight_boxes(self, day: date, diminishing: bool) -> tuple[int, int]:
        """(day start box, night start box) for ``day``; 21.4 steps only if ``diminishing``."""
        best: Daylight | None = None
        for d in self.daylight:
            if d.start <= day and (d.option is None or diminishing):
                best = d
        if best is None:
            raise KeyError(f"no daylight rule before {day}")
        return best.day_start, best.night_start

    def week_ends(self) -> list[date]:
        """6.4: the dates after whose last night impulse the week is scored."""
        return [w.end for w in self.weeks]
