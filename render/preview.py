"""The two pictures in ``docs/``: ``uv run python -m render.preview [FOLDER]``.

* ``stalingrad.png``: the historical set-up, public view;
* ``tanks.png``: Kursk: Into the Salient after a seeded random legal opening, as the GM sees
  it (hidden units and mines in the secret style), with the last action highlighted.

Both are deterministic: the same code and data packs give the same bytes.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.registry import load_game
from render import load_pack, render


def play(game_name: str, scenario: str, orders: int, seed: int) -> tuple[Any, Any]:
    game = load_game(game_name)
    rnd = random.Random(seed)
    dice = CommittedDice(bytes([seed]) * 32, game_id="preview")
    state = game.setup(scenario)
    done = 0
    for _ in range(orders * 4):
        side = game.acting_side(state)
        legal = game.legal_orders(state, side) if side else []
        if side is None or not legal or done >= orders:
            break
        try:
            outcome = game.apply_text(state, side, rnd.choice(legal), dice)
        except RuleError:
            continue
        state, done = outcome.state, done + 1
    return game, state


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    game, state = play("stalingrad", "historical", 0, 1)
    data = render(game.view(state, "public"), load_pack("stalingrad"))
    (folder / "stalingrad.png").write_bytes(data)
    game, state = play("tanks", "kursk-salient", 70, 5)
    data = render(game.view(state, "gm"), load_pack("tanks"))
    (folder / "tanks.png").write_bytes(data)
    for name in ("stalingrad.png", "tanks.png"):
        print(f"{folder / name}: {(folder / name).stat().st_size // 1024} KB")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs"))
