"""The red team's self-test: leaks planted on purpose, each of which must be found.

Each plant adds one public event to every secret set-up order of Stalin's Tanks while it
is in force — the four leaks of issue 27.5, worded as a careless rule or frontend might:

* a hidden unit and its hex ("pak75-1 set up hidden in 2816");
* a hidden unit's hex alone ("scouts report movement near 0101");
* a mine's hex in other words ("sappers were seen digging at 1213");
* a face-down unit's type ("a face-down german unit (Panth.) takes position").

For each, both checks are run on a scenario with that kind of secret: the differential
(:mod:`bot.redteam.differential`) and the token scan (:mod:`bot.redteam.leaks`). A plant
that either check misses is a failure of the red team itself (``self-test: planted leaks
missed``). The plant is in force only inside :func:`planted`, in this process.
"""

from __future__ import annotations

import contextlib
import random
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.registry import load_game
from adjudicator.tanks.game import TanksGame
from bot.redteam.differential import FIGURE, differential
from bot.redteam.leaks import Table, Tally, scan


@dataclass(frozen=True)
class Plant:
    name: str
    scenario: str
    verb: str  # the secret set-up order it rides on
    #: the leaked words, from the state before and after the order and the order
    words: Callable[[Any, Any, str, Any], str | None]


def _placed(before: Any, after: Any, order: Any) -> Any:
    return next((u for u in after.units if u.id == getattr(order, "unit", None)), None)


def _hidden_with_hex(before: Any, after: Any, side: str, order: Any) -> str | None:
    unit = _placed(before, after, order)
    return f"{unit.id} set up hidden in {unit.hex}" if unit is not None and unit.hidden \
        else None


def _hidden_hex(before: Any, after: Any, side: str, order: Any) -> str | None:
    unit = _placed(before, after, order)
    return f"scouts report movement near {unit.hex}" if unit is not None and unit.hidden \
        else None


def _mine_hex(before: Any, after: Any, side: str, order: Any) -> str | None:
    new = sorted(set(after.mines.get(side, [])) - set(before.mines.get(side, [])))
    return f"sappers were seen digging at {new[0]}" if new else None


def _face_down_type(rules: Any) -> Callable[[Any, Any, str, Any], str | None]:
    def words(before: Any, after: Any, side: str, order: Any) -> str | None:
        unit = _placed(before, after, order)
        if unit is None or not unit.concealed:
            return None
        label = rules.data.types[unit.type].label
        return f"a face-down {side} unit ({label}) takes position"
    return words


def plants() -> list[Plant]:
    rules = load_game("tanks")
    return [
        Plant("a hidden unit and its hex", "pakfront", "hide", _hidden_with_hex),
        Plant("a hidden unit's hex alone", "pakfront", "hide", _hidden_hex),
        Plant("a mine's hex in other words", "kursk-salient", "mine", _mine_hex),
        Plant("a face-down unit's type", "gauntlet", "place", _face_down_type(rules)),
    ]


@contextlib.contextmanager
def planted(plant: Plant) -> Iterator[None]:
    """While in force, every secret set-up order of ``plant.verb`` also tells the public
    ``plant.words`` (an event of the order's outcome: notices, log, record, captions)."""
    original = TanksGame.apply

    def apply(self: TanksGame, state: Any, side: str, order: Any, dice: Any, *,
              owned: bool = False) -> Any:
        before = state.model_copy(deep=True) if owned else state
        outcome = original(self, state, side, order, dice, owned=owned)
        if getattr(order, "verb", None) == plant.verb:
            text = plant.words(before, outcome.state, side, order)
            if text is not None:
                outcome.events.append(Event(kind="report", text=text, audience=PUBLIC))
        return outcome

    TanksGame.apply = apply  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        TanksGame.apply = original  # type: ignore[method-assign]


def scan_finds(folder: Path, plant: Plant, seed: int) -> bool:
    """The token scan over a set-up whose secret side gives ``plant.verb`` orders."""
    tally = Tally()
    table = Table(folder, "tanks", plant.scenario, random.Random(seed), seed, tally)
    m, service = table.moment, table.service
    for step in range(1, 4):
        state = m.state()
        side = table.rules.acting_side(state)
        if side is None:
            break
        actor = table.players[side]
        legal = service.legal_orders(table.game_id, actor, side)
        chosen = [o for o in legal if o.split()[0] == plant.verb] or legal
        m.step = 60 * step
        m.results = [service.submit(table.game_id, actor, chosen[0])]
        scan(m, tally)
    service.store.close()
    return sum(tally.failed.values()) > 0


def differential_finds(plant: Plant, seed: int) -> bool:
    """The differential over pairs of worlds of the plant's scenario (a few seeds: a pair
    is made only when the random set-up has a secret to change)."""
    tally = Tally()
    for n in range(6):
        differential("tanks", plant.scenario, 2, seed + n, tally, first=True)
        if tally.tried[FIGURE.format(game="tanks")]:
            break
    return tally.failed[FIGURE.format(game="tanks")] > 0


def run_selftest(tally: Tally, *, seed: int, out: Callable[[str], None]) -> None:
    """Plant each leak in turn; both checks must find it."""
    with tempfile.TemporaryDirectory(prefix="umpire-selftest-") as folder:
        for n, plant in enumerate(plants()):
            with planted(plant):
                by_scan = scan_finds(Path(folder), plant, seed + n)
                by_differential = differential_finds(plant, seed + n)
            missed = [check for check, found in (("the token scan", by_scan),
                                                 ("the differential", by_differential))
                      if not found]
            tally.count("self-test: planted leaks missed", bool(missed),
                        f"{plant.name}: missed by {' and '.join(missed)}")
    out("  self-test: four planted leaks")
