"""Local play: a hot-seat / solitaire console speaking the same notation as every frontend.

The console is one more frontend of the game service: every game is stored in the SQLite
file (``--db`` / ``UMPIRE_DB`` / the user data directory), so it can be resumed with
``umpire play --resume ID`` and exported, verified or rendered like any other game. The
local player holds every side's seat and the GM seat.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC, Event
from adjudicator.kernel.game import Game
from adjudicator.kernel.state import GameState
from bot.messages import events_from_json
from bot.records import export_lines, verify
from bot.service import Actor, GameService, SubmitResult

#: The person at the console: seated for every side and as GM of their local games.
LOCAL = Actor(email="console@localhost")

HELP = """\
Type an order in the game's notation (several separated by ';'), or one of:
  board [SIDE|public|gm]   show the board as that viewer sees it (default: the side to act)
  map [SIDE|public|gm] [FILE]  write that viewer's map picture (PNG) to FILE
  legal                    list legal orders for the side to act
  secret                   type orders privately (hidden units, mines): nothing is echoed
  standing KIND POLICY     set a standing order (standing KIND off clears it)
  policies                 list the standing-order policies
  log [N]                  the last N actions
  dice                     show the dice commitment
  help [VERB]              this text, or one order's forms, rules and examples
  quit                     leave; the game stays stored (umpire play --resume ID)"""


class LocalGame:
    """One stored game played at the console through the game service."""

    def __init__(self, service: GameService, game_id: str) -> None:
        self.service = service
        self.game_id = game_id
        self.rules: Game[Any] = service.rules(game_id)
        self.last_events: list[Event] = []

    @classmethod
    def new(cls, service: GameService, game: str, scenario: str | None,
            game_id: str | None = None, pack: Path | None = None,
            options: dict[str, Any] | None = None) -> LocalGame:
        info = service.create_game(LOCAL, game, scenario, options, pack=pack,
                                   bindings={"console": True}, game_id=game_id)
        rules = service.rules(info.id)
        for side in rules.sides:
            service.seat(info.id, LOCAL, side, LOCAL)
        service.start(info.id, LOCAL)
        return cls(service, info.id)

    @property
    def state(self) -> GameState:
        return self.service.load_state(self.game_id)

    @property
    def commitment(self) -> str:
        return self.service.info(self.game_id).commitment

    def submit(self, side: str, text: str, private: bool = False) -> tuple[list[str], str | None]:
        """Submit lines for ``side``; returns the lines to print and an error, if any.

        Hot-seat: everyone shares the screen, so a normal order shows what the acting side
        may see, and a private one only what everybody may see.
        """
        result: SubmitResult = self.service.submit(self.game_id, LOCAL,
                                                   text.replace(";", "\n"), side=side)
        message = result.messages.get(PUBLIC if private else side)
        shown = list(message.lines) if message is not None else []
        if private and result.applied:
            shown.append(f"{len(result.applied)} private order(s) accepted")
        if result.seqs:
            self.last_events = self._events_of(result.seqs)
        error = None
        if result.error is not None:
            where = f"line {result.stopped_at}: " if result.stopped_at else ""
            error = where + result.error
        return shown, error

    def _events_of(self, seqs: list[int]) -> list[Event]:
        """The stored events of the given actions (the map filters them by viewer)."""
        events: list[Event] = []
        for seq in seqs:
            row = self.service.store.action(self.game_id, seq)
            if row is not None:
                events += events_from_json(json.loads(row["events"]))
        return events

    def verify_dice(self) -> tuple[str, bool]:
        """The revealed seed and whether every roll so far verifies against it."""
        seed = self.service.reveal_seed(self.game_id, LOCAL)
        report = verify(export_lines(self.service.store, self.game_id), seed)
        return seed, report.ok


def _one_line(error: Exception) -> str:
    """An unexpected error as one line for the console (the game is stored; go on)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return f"could not do that: {text[:200]}"


def _print_lines(console: Console, lines: list[str]) -> None:
    for text in lines:
        console.print(f"  {text}", markup=False, highlight=False)


def _private_round(local: LocalGame, side: str, read: Callable[[str], str],
                   console: Console) -> bool:
    """Read private lines until an empty one and submit them; False when the player quits."""
    lines: list[str] = []
    ended = False
    while True:
        try:
            typed = read("  secret> ").strip()
        except (EOFError, KeyboardInterrupt):
            ended = True
            break
        if typed.lower() == "quit":
            ended = True
            break
        if not typed:
            break
        lines.append(typed)
    if lines:
        shown, problem = local.submit(side, "\n".join(lines), private=True)
        _print_lines(console, shown)
        if problem is not None:
            console.print(f"[red]{escape(problem)}[/red]", highlight=False)
    return not ended


def run_console(
    service: GameService,
    local: LocalGame,
    read: Callable[[str], str],
    console: Console,
    read_private: Callable[[str], str] | None = None,
) -> LocalGame:
    """Prompt the side to act (or owing a decision) until the game ends or input ends."""
    game = local.rules
    info = service.info(local.game_id)
    console.print(f"[bold]{game.title}[/bold] — game {local.game_id}, scenario "
                  f"{info.scenario or next(iter(game.scenarios()))}")
    console.print(f"Dice commitment: {local.commitment}  (type 'help' for commands)")
    console.print(game.board_text(game.view(local.state, PUBLIC)), markup=False, highlight=False)
    private_read = read_private or read
    while True:
        state = local.state
        side = game.acting_side(state)
        if side is None:
            console.print(f"[bold]Game over:[/bold] {escape(str(state.result))}")
            break
        pending = state.pending
        if pending is not None and pending.side == side:
            console.print(f"[yellow]{side} decides ({pending.rule}):[/yellow] "
                          f"{escape(pending.prompt)}")
            for option in pending.options:
                console.print(f"   {option.order}   {option.label}", markup=False)
        if game.private_input(state) == side:
            console.print(f"{side} is placing secrets: the other player looks away. Type "
                          "private orders (not shown); an empty line ends.")
            if not _private_round(local, side, private_read, console):
                break
            continue
        try:
            line = read(f"\\[{side}] > ").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not line:
            continue
        words = line.split()
        command = words[0].lower()
        if command == "quit":
            break
        try:
            if command == "help":
                try:
                    console.print(game.help(words[1]) if len(words) > 1
                                  else f"{HELP}\n\nOrders:\n{game.help()}", markup=False)
                except RuleError as error:
                    console.print(f"[red]{escape(str(error))}[/red]")
            elif command == "board":
                viewer = words[1] if len(words) > 1 else side
                try:
                    board = game.board_text(game.view(state, viewer))
                except ValueError as error:
                    console.print(f"[red]{escape(str(error))}[/red]")
                    continue
                console.print(board, markup=False, highlight=False)
            elif command == "map":
                viewer = words[1] if len(words) > 1 else side
                path = Path(words[2] if len(words) > 2 else f"{game.name}-{viewer}.png")
                try:
                    import render

                    view = game.view(state, viewer)
                    data = render.render(view, render.load_pack(game.name, game.pack),
                                         events=local.last_events)
                    path.write_bytes(data)
                except (ValueError, OSError) as error:
                    console.print(f"[red]{escape(str(error))}[/red]")
                    continue
                console.print(f"map written to {path}", markup=False, highlight=False)
            elif command == "legal":
                console.print(", ".join(game.legal_orders(state, side)) or "none", markup=False)
            elif command == "policies":
                for policy in game.standing_policies():
                    console.print(f"standing {policy.kind} {policy.policy}: {policy.description}",
                                  markup=False)
            elif command == "log":
                count = (min(int(words[1]), 1000) if len(words) > 1
                         and words[1].isascii() and words[1].isdigit() else 10)
                for entry in service.log(local.game_id, LOCAL, count, audience=PUBLIC):
                    text = entry.text if entry.text is not None else "(private)"
                    console.print(f"  {entry.seq:>4} {entry.side or '':<8} {text}", markup=False,
                                  highlight=False)
            elif command == "dice":
                console.print(f"commitment {local.commitment}")
            elif command == "secret":
                console.print(f"{side}: type private orders (not shown); an empty line ends.")
                _private_round(local, side, private_read, console)
            else:
                if game.is_secret_text(line):
                    console.print("[yellow]that order is secret: use 'secret' to type it without "
                                  "showing it on the screen[/yellow]")
                shown, problem = local.submit(side, line)
                _print_lines(console, shown)
                if problem is not None:
                    console.print(f"[red]{escape(problem)}[/red]", highlight=False)
        except Exception as error:  # a command never ends the console with a traceback
            console.print(f"[red]{escape(_one_line(error))}[/red]", highlight=False)
    finished = local.state.result is not None
    if finished:
        seed, ok = local.verify_dice()
        console.print(f"Dice seed (check the commitment): {seed}")
        console.print("Dice verified: " + ("yes" if ok else "NO"))
    else:
        console.print(f"Game {local.game_id} is saved: resume with "
                      f"'umpire play {info.game} --resume {local.game_id}'", markup=False)
    return local
