"""Local play: a hot-seat / solitaire console speaking the same notation as every frontend."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape

from adjudicator.kernel.dice import CommittedDice, commitment, effective_seed, verify
from adjudicator.kernel.events import PUBLIC, visible_to
from adjudicator.kernel.game import Game

HELP = """\
Type an order in the game's notation (several separated by ';'), or one of:
  board [SIDE|public|gm]   show the board as that viewer sees it (default: the side to act)
  map [SIDE|public|gm] [FILE]  write that viewer's map picture (PNG) to FILE
  legal                    list legal orders for the side to act
  standing KIND POLICY     set a standing order (standing KIND off clears it)
  policies                 list the standing-order policies
  dice                     show the dice commitment
  help                     this text
  quit                     leave (the dice seed is revealed for verification)"""


class LocalGame:
    """One game at the console: state, committed dice and the running record."""

    def __init__(self, game: Game[Any], scenario: str | None, seed: bytes | None = None) -> None:
        self.game = game
        self.state = game.setup(scenario)
        self.server_seed = seed if seed is not None else os.urandom(32)
        self.commitment = commitment(self.server_seed)
        self.dice = CommittedDice(effective_seed(self.server_seed), game_id="local")
        self.record: list[tuple[str, str]] = []
        self.last_events: list[Any] = []

    def submit(self, side: str, text: str) -> tuple[list[str], str | None]:
        """Apply lines for ``side``; returns the texts to print and an error, if any."""
        batch = self.game.submit_lines(self.state, side, text.replace(";", "\n"), self.dice)
        self.state = batch.state
        self.last_events = list(batch.events)
        self.record.extend((side, line) for line in batch.applied)
        # Hot-seat: everyone shares the screen, so show what the acting side may see.
        shown = [event.text for event in visible_to(batch.events, side)]
        error = None
        if batch.error is not None:
            error = f"line {batch.stopped_at}: {batch.error}"
        return shown, error

    def verify_dice(self) -> bool:
        return verify(self.commitment, self.server_seed, "local", self.dice.rolls).ok


def run_console(
    game: Game[Any],
    scenario: str | None,
    read: Callable[[str], str],
    console: Console,
    seed: bytes | None = None,
) -> LocalGame:
    """Prompt the side to act (or owing a decision) until the game ends or input ends."""
    local = LocalGame(game, scenario, seed)
    name = scenario or next(iter(game.scenarios()))
    console.print(f"[bold]{game.title}[/bold] — scenario {name}")
    console.print(f"Dice commitment: {local.commitment}  (type 'help' for commands)")
    console.print(game.board_text(game.view(local.state, PUBLIC)), markup=False, highlight=False)
    while True:
        side = game.acting_side(local.state)
        if side is None:
            console.print(f"[bold]Game over:[/bold] {local.state.result}")
            break
        pending = local.state.pending
        if pending is not None and pending.side == side:
            console.print(f"[yellow]{side} decides ({pending.rule}):[/yellow] {pending.prompt}")
            for option in pending.options:
                console.print(f"   {option.order}   {option.label}", markup=False)
        try:
            line = read(f"\\[{side}] > ").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not line:
            continue
        command = line.split()[0].lower()
        if command == "quit":
            break
        if command == "help":
            console.print(HELP, markup=False)
        elif command == "board":
            viewer = line.split()[1] if len(line.split()) > 1 else side
            try:
                board = game.board_text(game.view(local.state, viewer))
            except ValueError as error:
                console.print(f"[red]{error}[/red]")
                continue
            console.print(board, markup=False, highlight=False)
        elif command == "map":
            parts = line.split()
            viewer = parts[1] if len(parts) > 1 else side
            path = parts[2] if len(parts) > 2 else f"{game.name}-{viewer}.png"
            try:
                import render

                view = game.view(local.state, viewer)
                data = render.render(view, render.load_pack(game.name, game.pack),
                                     events=local.last_events)
                with open(path, "wb") as handle:
                    handle.write(data)
            except (ValueError, OSError) as error:
                console.print(f"[red]{escape(str(error))}[/red]")
                continue
            console.print(f"map written to {path}", markup=False, highlight=False)
        elif command == "legal":
            console.print(", ".join(game.legal_orders(local.state, side)) or "none", markup=False)
        elif command == "policies":
            for policy in game.standing_policies():
                console.print(f"standing {policy.kind} {policy.policy}: {policy.description}",
                              markup=False)
        elif command == "dice":
            console.print(f"commitment {local.commitment}; {len(local.dice.rolls)} rolls so far")
        else:
            shown, problem = local.submit(side, line)
            for text in shown:
                console.print(f"  {text}", markup=False, highlight=False)
            if problem is not None:
                console.print(f"[red]{escape(problem)}[/red]", highlight=False)
    console.print(f"Dice seed (check the commitment): {local.server_seed.hex()}")
    console.print("Dice verified: " + ("yes" if local.verify_dice() else "NO"))
    return local


