"""Durations: how people type them (``48h``, ``2d``, ``90m``, ``36`` for hours) and the one
bound on every duration Umpire keeps (a deadline's period).

Every frontend and the game service read durations here: the mail gateway parses the
text a GM writes, Discord passes the hours its option holds, the service checks what it
stores (:func:`check`) and everything that computes with a stored period or deadline
reads it through :func:`bounded`, so an endless or absurd value (``999…9d``, an
infinite float) is refused when given and harmless if it was ever stored.
"""

from __future__ import annotations

import math
import re

#: The longest deadline period: 60 days (a turn of a play-by-mail game is days, not years).
MAX_SECONDS = 60 * 86400.0
#: The words a duration may end with, and their length in seconds (no unit: hours).
UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0}
#: A typed duration: at most 6 digits before the point and 3 after it, one unit word.
DURATION = re.compile(r"([0-9]{1,6}(?:\.[0-9]{1,3})?)\s*(d|days?|h|hours?|m|min|minutes?)?",
                      re.IGNORECASE)
EXAMPLES = "write e.g. 48h, 2d or 90m (at most 60 days)"


class DurationError(ValueError):
    """A duration that cannot be read, or is not longer than nothing and at most
    :data:`MAX_SECONDS`; the message says what is accepted."""


def parse(text: str) -> float:
    """``48h``, ``2d``, ``90m``, ``36`` (hours) → seconds, checked by :func:`check`."""
    found = DURATION.fullmatch(text.strip())
    if not found:
        shown = text.strip() if len(text.strip()) <= 20 else text.strip()[:20] + "…"
        raise DurationError(f"cannot read {shown!r} as a duration: {EXAMPLES}")
    unit = (found.group(2) or "h")[0].lower()
    return check(float(found.group(1)) * UNITS[unit])


def from_hours(hours: float | None) -> float | None:
    """A period given in hours (a Discord option) → seconds; none for none or 0."""
    if hours is None or hours == 0:
        return None
    return check(hours * 3600.0)


def check(seconds: float) -> float:
    """``seconds`` if it is a period Umpire keeps (finite, > 0, ≤ :data:`MAX_SECONDS`)."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise DurationError(f"a deadline is longer than nothing: {EXAMPLES}")
    if seconds > MAX_SECONDS:
        raise DurationError(f"a deadline is at most {MAX_SECONDS / 86400:g} days: {EXAMPLES}")
    return seconds


def bounded(seconds: float) -> float:
    """A stored period or time left, read safely: between 0 and :data:`MAX_SECONDS`
    (an infinite or unreadable value, stored before the bound, counts as the longest)."""
    if math.isnan(seconds):
        return MAX_SECONDS
    return min(max(seconds, 0.0), MAX_SECONDS)
