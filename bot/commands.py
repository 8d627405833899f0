"""The command catalogue: every non-order command, declared once (issue 22, item 3).

A :class:`Command` names a command once — its arguments, what it does, who may use it
(anyone, a player, the GM), where its answer goes (public; private: the asker's side
alone; gm) and the name it has in each frontend (the console, email, Discord). The
console's ``help`` and command table, the email ``help`` text and the words a mail reads
as commands, and the descriptions of Discord's ``/game``, ``/gm`` and top-level commands
all come from here; ``help COMMAND`` answers alike everywhere (``help map``). A frontend
handles exactly the commands the catalogue gives it: ``tests/bot/test_command_catalogue.py``
pins that each one's handlers and the catalogue name the same commands.

Orders are not here: they are the games' order specs (``standing`` and ``resign`` are in
the kernel's shared spec), read by the service's one submission.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from bot.service.models import GameInfo

Frontend = Literal["console", "email", "discord"]
#: Who may use a command.
Who = Literal["anyone", "player", "gm"]
#: Where its answer goes: ``public`` (anyone may read it), ``private`` (the asker's side
#: alone: a DM, a mail to Umpire alone, the console behind its look-away step), ``gm``.
Where = Literal["public", "private", "gm"]
FRONTENDS: tuple[Frontend, ...] = ("console", "email", "discord")


@dataclass(frozen=True)
class Command:
    """One non-order command."""

    name: str
    #: Its arguments as usage text (``[N]``, ``SIDE because REASON``).
    args: str
    #: One line: what it does (Discord's description: at most 100 characters).
    summary: str
    who: Who
    where: Where
    #: Its name per frontend that has it (Discord: the command path, ``game status``).
    names: dict[Frontend, str] = field(default_factory=dict)
    #: More words that name it (email: ``games`` for ``list``).
    aliases: tuple[str, ...] = ()

    @property
    def usage(self) -> str:
        return f"{self.name} {self.args}".strip()

    def help(self) -> str:
        """``help COMMAND``: usage, what it does, who may use it, where it answers."""
        who = {"anyone": "anyone", "player": "a seated player", "gm": "the game's GM"}
        where = {"public": "public", "private": "private to your side", "gm": "to the GM"}
        return (f"{self.usage}: {self.summary} (for {who[self.who]}; the answer is "
                f"{where[self.where]})")


def _c(name: str, args: str, summary: str, who: Who, where: Where, *,
       console: str | None = None, email: str | None = None, discord: str | None = None,
       aliases: tuple[str, ...] = ()) -> Command:
    given: dict[Frontend, str | None] = {"console": console, "email": email,
                                         "discord": discord}
    names = {frontend: named for frontend, named in given.items() if named is not None}
    return Command(name, args, summary, who, where, names, aliases)


#: Every command, in the order help lists them.
CATALOGUE: tuple[Command, ...] = (
    # anyone
    _c("help", "[GAME] [VERB|COMMAND]", "Umpire's commands, or one game's orders", "anyone",
       "public", console="help", email="help", discord="help"),
    _c("list", "", "Your games", "anyone", "private", email="list", aliases=("games",)),
    _c("create", "GAME [SCENARIO]", "Create a game (on Discord: with its thread); you are its GM",
       "anyone", "public", email="create", discord="game new", aliases=("new",)),
    _c("open", "", "Games on this server with a free side", "anyone", "public",
       discord="game open"),
    _c("join", "[GAMEID] SIDE", "Take a free side in a game", "anyone", "public",
       email="join", discord="game join"),
    _c("leave", "", "Give up your seat before the game starts", "player", "public",
       discord="game leave"),
    _c("observe", "[GAMEID]", "Receive the game's public mail (email); unobserve stops it",
       "anyone", "public", email="observe", aliases=("unobserve",)),
    _c("status", "", "Seats, whose turn, deadline", "anyone", "public", email="status",
       discord="game status"),
    _c("brief", "[GAMEID]", "The scenario's briefing: sides, length, victory, special rules",
       "anyone", "public", console="brief", email="brief"),
    # players
    _c("legal", "[VERB|UNIT|PLACE ...] [by unit|by verb] [more|all]",
       "The orders you may give now; words narrow it (legal i/103, legal move, legal 14)",
       "player", "private", console="legal", email="legal"),
    _c("placed", "", "Your secret set-up so far (privately only)", "player", "private",
       console="placed", email="placed"),
    _c("link", "[new|observers]", "Your seat's secret web page link ('new' ends every older "
       "one)", "player", "private",
       email="link", discord="game link"),
    _c("left", "", "What your secret set-up has left to place, and where", "player",
       "private", console="left"),
    _c("board", "[SIDE|public|gm]", "The board as text, as that viewer sees it", "player",
       "private", console="board"),
    _c("map", "[SIDE|public|gm] [FILE]", "The map picture: the public one, or your own view",
       "anyone", "public", console="map", email="map", discord="game map"),
    _c("log", "[N]", "The last actions, as you may see them", "anyone", "public",
       console="log", email="log", discord="game log"),
    _c("export", "", "The game record (JSON lines): full for the GM and after the end, your "
       "own view during play", "anyone", "private", discord="game export"),
    _c("dice", "", "The dice commitment; verification after the end", "anyone", "public",
       console="dice", discord="game dice"),
    _c("policies", "", "The standing orders you may set, and which apply by default",
       "player", "private", console="policies", email="policies"),
    _c("standing", "KIND POLICY", "Set a standing order that answers a kind of decision at "
       "once", "player", "private", discord="game standing"),
    _c("decide", "N | OPTION", "Answer the decision you owe", "player", "public",
       discord="decide"),
    _c("order", "[ORDERS]", "Orders in the game's notation: several separated by ';', or "
       "none to type many lines", "player", "public", discord="order"),
    _c("secret", "", "Type orders privately (hidden units, mines, traps): not echoed",
       "player", "private", console="secret"),
    _c("undo", "", "Take back your last order (if it revealed nothing and rolled no dice)",
       "player", "public", console="undo", email="undo", discord="game undo"),
    _c("resign", "", "Give the game up: the other side wins", "player", "public",
       discord="game resign"),
    _c("quit", "", "Leave; the game stays stored (umpire play --resume ID)", "anyone",
       "public", console="quit"),
    # the GM
    _c("start", "[DURATION]", "Start the game (GM)", "gm", "public", email="start",
       discord="game start"),
    _c("deadline", "DURATION|off", "Time per turn or decision (GM); 0 turns it off", "gm",
       "public", email="deadline", discord="game deadline"),
    _c("seat", "SIDE WHO [because REASON]", "Seat a player for a side, replacing whoever "
       "plays it", "gm", "public", email="seat", discord="gm seat"),
    _c("unseat", "SIDE because REASON", "Free a side's seat", "gm", "public", email="unseat"),
    _c("secret-reset", "SIDE|gm [SECRET]", "Set or reset a seat's secret (mailed to its "
       "holder only)", "gm", "private", email="secret"),
    _c("pause", "REASON", "Pause the game: no orders or decisions, deadlines stopped "
       "(announced)", "gm", "public", email="pause", discord="gm pause"),
    _c("resume", "REASON", "Resume a paused game (deadlines are extended by the pause)", "gm",
       "public", email="resume", discord="gm resume"),
    _c("override", "OP ARGS because REASON", "A logged GM correction, publicly announced",
       "gm", "public", email="override", discord="gm override"),
    _c("roll", "VALUES because REASON", "Set the next die value(s), with a reason "
       "(announced without the values)", "gm", "gm", discord="gm roll"),
    _c("rollback", "N because REASON", "Return the game to an earlier action (preview "
       "first)", "gm", "gm", email="rollback", discord="gm rollback"),
    _c("confirm", "CODE", "Carry out the rollback a preview gave this code", "gm", "public",
       email="confirm"),
    _c("roll-forward", "", "Re-apply the orders of the last rollback while they stay legal",
       "gm", "public", discord="gm roll-forward"),
    _c("seed", "", "The dice seed, once the game is over (nobody, the GM included, sees it "
       "before)", "gm", "gm", email="seed", discord="gm reveal-seed"),
)

_BY_WORD: dict[str, Command] = {}
for _command in CATALOGUE:
    for _word in {_command.name, *_command.names.values(), *_command.aliases}:
        _BY_WORD.setdefault(_word, _command)


def command(word: str) -> Command | None:
    """The command a word names (its name, a frontend's name for it, an alias)."""
    return _BY_WORD.get(" ".join(word.lower().split()))


def of(frontend: Frontend) -> list[Command]:
    """The commands ``frontend`` offers, in catalogue order."""
    return [c for c in CATALOGUE if frontend in c.names]


def names(frontend: Frontend, *, aliases: bool = False) -> set[str]:
    """The words ``frontend`` reads as its commands (``aliases``: with their aliases)."""
    return {word for c in of(frontend)
            for word in (c.names[frontend], *(c.aliases if aliases else ()))}


def describe(frontend: Frontend, name: str) -> str:
    """The one-line summary of the command ``frontend`` calls ``name``."""
    found = next((c for c in of(frontend) if c.names[frontend] == name), None)
    if found is None:
        raise KeyError(f"{frontend} has no command {name!r} in the catalogue")
    return found.summary


def help_lines(frontend: Frontend, who: Iterable[Who] = ("anyone", "player", "gm"),
               width: int = 26) -> list[str]:
    """One line per command ``frontend`` offers to ``who``: its usage there, what it does."""
    wanted = set(who)
    lines: list[str] = []
    for c in of(frontend):
        if c.who not in wanted:
            continue
        usage = f"{c.names[frontend]} {c.args}".strip()
        if len(usage) < width:
            lines.append(f"  {usage:<{width}} {c.summary}")
        else:  # a long usage on its own line, what it does under it
            lines += [f"  {usage}", f"  {'':<{width}} {c.summary}"]
    return lines


def start_notice(info: GameInfo, title: str) -> str:
    """What every seat is told when a game starts (email; Discord's start post says the
    same with mentions): the game, its scenario, who acts first, the dice commitment."""
    return (f"Game {info.id} ({title}, scenario {info.scenario_name}) has started. "
            f"To act: {info.to_act or 'nobody'}. Dice commitment (sha256 of the secret "
            f"seed): {info.commitment}. 'brief' gives the briefing, 'legal' your orders.")
