"""Where a Turning Point: Stalingrad unit can be when it is on no Area or Zone.

A unit's location (``UnitState.loc``) is an Area number, a Zone letter, or one of these
pseudo-locations; the rules, the last-action record and the pictures share them.
"""

from __future__ import annotations

from typing import Final

EAST: Final = "east"  # Russian reinforcements waiting on the east bank of the Volga (18.2)
OFFBOARD: Final = "offboard"  # German reinforcements kept off the board (6.2, 18.2)
POOL: Final = "pool"  # not yet arrived
DEAD: Final = "dead"
OUT: Final = "out"  # not in this scenario (the Sawmill's other Quadrants, relegated arrivals)
BOX: Final = "box"  # the Luftwaffe (4.26) and the Russian FAG units (5.3) in their printed boxes
REMOVED: Final = "removed"  # an Observer removed until the next Dawn (15.22, 8.3556)
GONE: Final = "withdrawn"  # withdrawn from the game (21.3)
OFF_MAP: frozenset[str] = frozenset({EAST, OFFBOARD, POOL, DEAD, OUT, BOX, REMOVED, GONE})
