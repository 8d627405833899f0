"""Local play: a hot-seat / solitaire console speaking the same notation as every frontend.

The console is one more frontend of the game service: every game is stored in the SQLite
file (``--db`` / ``UMPIRE_DB`` / the user data directory), so it can be resumed with
``umpire play --resume ID`` and exported, verified or rendered like any other game. The
local player holds every side's seat and the GM seat.

At a terminal it reads lines with prompt_toolkit: line editing, a history kept across
sessions, and tab completion of commands, verbs, units, Areas and hexes from the legal
orders of the moment (:class:`PromptIO`). Tests and pipes drive the same :class:`Session`
with plain read functions (:func:`run_console`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import AnyFormattedText, FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from rich.console import Console
from rich.markup import escape

from adjudicator.kernel.decisions import SetupGuide
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.orders import words as order_words
from adjudicator.kernel.views import View
from bot import listing
from bot.records import verify
from bot.service import Actor, GameService, Prompt, ServiceError, SubmitResult

#: The person at the console: seated for every side and as GM of their local games.
LOCAL = Actor(email="console@localhost")

#: Console commands: name -> (usage, what it does). Anything else is an order.
COMMANDS: dict[str, tuple[str, str]] = {
    "legal": ("legal [VERB|UNIT|PLACE ...] [by unit|by verb] [more|all]",
              "what you may do now, grouped, a page at a time; filters narrow it "
              "(legal i/103, legal move, legal 14)"),
    "help": ("help [VERB]", "this text, or one order's forms, rules and examples"),
    "board": ("board [SIDE|public|gm]", "the board as that viewer sees it (another side's "
              "view asks first: it shows that side's secrets)"),
    "map": ("map [SIDE|public|gm] [FILE]", "write that viewer's map picture (PNG) to FILE"),
    "undo": ("undo", "take back your last order, if it revealed nothing"),
    "secret": ("secret", "type orders privately (hidden units, mines, traps): not echoed"),
    "policies": ("policies", "the standing orders you may set, and which apply by default"),
    "log": ("log [N]", "the last N actions"),
    "dice": ("dice", "the dice commitment"),
    "quit": ("quit", "leave; the game stays stored (umpire play --resume ID)"),
}

HELP = ("Type an order (several separated by ';'), 'standing KIND POLICY' (anywhere, "
        "kept private), or a command:\n"
        + "\n".join(f"  {usage:<44} {what}" for usage, what in COMMANDS.values()))

#: How each side's name is coloured.
SIDE_STYLE = {"german": "bold blue", "russian": "bold dark_orange3", "soviet": "bold red3",
              "red": "bold red", "blue": "bold blue"}


def side_style(side: str | None) -> str:
    return SIDE_STYLE.get(side or "", "bold")


def paint(text: str, sides: Sequence[str]) -> str:
    """``text`` as rich markup: side names in their colour, the rest escaped."""
    out = escape(text)
    for side in sides:
        out = re.sub(rf"\b{re.escape(side)}\b", f"[{side_style(side)}]{side}[/]", out)
    return out


class LocalGame:
    """One stored game played at the console through the game service's public calls (the
    console reads views, prompts and legal orders as the local player, never the state)."""

    def __init__(self, service: GameService, game_id: str) -> None:
        self.service = service
        self.game_id = game_id
        self.rules: Game[Any] = service.rules(game_id)

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

    def prompt(self, side: str | None = None) -> Prompt:
        """The moment as ``side`` meets it (default: the side to act)."""
        return self.service.prompt(self.game_id, LOCAL, side)

    def view(self, viewer: str) -> View:
        return self.service.view(self.game_id, LOCAL, viewer)

    @property
    def head(self) -> int:
        return self.service.info(self.game_id).head_seq

    @property
    def commitment(self) -> str:
        return self.service.info(self.game_id).commitment

    def send(self, side: str, text: str) -> SubmitResult:
        return self.service.submit(self.game_id, LOCAL, text.replace(";", "\n"), side=side)

    def submit(self, side: str, text: str, private: bool = False) -> tuple[list[str], str | None]:
        """Submit lines for ``side``; returns the lines to print and an error, if any.

        Hot-seat: everyone shares the screen, so a normal order shows what the acting side
        may see, and a private one only what everybody may see.
        """
        result = self.send(side, text)
        message = result.messages.get(PUBLIC if private else side)
        shown = list(message.lines) if message is not None else []
        if private and result.applied:
            shown.append(f"{len(result.applied)} private order(s) accepted")
        error = None
        if result.error is not None:
            where = f"line {result.stopped_at}: " if result.stopped_at else ""
            error = where + result.error
        return shown, error

    def verify_dice(self) -> tuple[str, bool]:
        """The revealed seed and whether every roll so far verifies against it."""
        seed = self.service.reveal_seed(self.game_id, LOCAL)
        report = verify(self.service.export(self.game_id, LOCAL).lines, seed)
        return seed, report.ok


class ConsoleIO(Protocol):
    """Where the console reads lines: ``read`` (echoed), ``read_private`` (not echoed)."""

    def read(self, prompt: str) -> str: ...

    def read_private(self, prompt: str) -> str: ...


@dataclass
class FunctionIO:
    """Lines from two functions (tests, pipes): ``read_private`` defaults to ``read``."""

    reader: Callable[[str], str]
    private_reader: Callable[[str], str] | None = None

    def read(self, prompt: str) -> str:
        return self.reader(prompt)

    def read_private(self, prompt: str) -> str:
        return (self.private_reader or self.reader)(prompt)


def _one_line(error: Exception) -> str:
    """An unexpected error as one line for the console (the game is stored; go on)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return f"could not do that: {text[:200]}"


class Session:
    """The console's loop and commands over one :class:`LocalGame`."""

    def __init__(self, service: GameService, local: LocalGame, io: ConsoleIO,
                 console: Console) -> None:
        self.service = service
        self.local = local
        self.game = local.rules
        self.io = io
        self.console = console
        self.listing: listing.Listing | None = None
        self._entries: tuple[tuple[int, str], list[listing.Entry]] | None = None

    # ---- output ---------------------------------------------------------------------------

    def short(self, text: str) -> str:
        """``text`` with unit ids written by their short names (``g14pz:i/103`` ->
        ``i/103``), as a player types them."""
        return self.service.short_texts(self.local.game_id, [text])[0]

    def say(self, text: str, style: str | None = None) -> None:
        markup = paint(text, self.game.sides)
        self.console.print(f"[{style}]{markup}[/]" if style else markup, highlight=False)

    def lines(self, lines: Sequence[str], indent: str = "  ") -> None:
        shown = self.service.short_texts(self.local.game_id, lines) if lines else []
        for line in shown:
            self.console.print(indent + paint(line, self.game.sides), highlight=False)

    def refuse(self, text: str) -> None:
        self.console.print(f"[red]{escape(text)}[/red]", highlight=False)

    def busy(self, lines: int) -> Any:
        """A spinner while a batch resolves (at a terminal only)."""
        if lines > 1:
            return self.console.status(f"resolving {lines} orders ...")
        return contextlib.nullcontext()

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question (default no)."""
        try:
            answer = self.io.read(f"{question} [y/N] ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            return False
        return answer in ("y", "yes")

    # ---- what may be typed ----------------------------------------------------------------

    def entries(self, side: str) -> list[listing.Entry]:
        """The legal orders of ``side`` now, read once per action."""
        key = (self.local.head, side)
        if self._entries is None or self._entries[0] != key:
            self._entries = (key, self.service.legal_entries(self.local.game_id, LOCAL,
                                                             side))
        return self._entries[1]

    def verbs(self) -> list[str]:
        return self.game.order_spec.first_words()

    def completions(self, line: str, side: str | None = None) -> list[str]:
        """The words that may come next in ``line`` (tab completion): commands and verbs
        first, then — from the legal orders of the moment — units, Areas and hexes."""
        parts = line.split()
        partial = "" if not parts or line.endswith(" ") else parts[-1]
        done = parts if partial == "" else parts[:-1]
        side = side or self.service.info(self.local.game_id).to_act
        found = self.entries(side) if side is not None else []
        if not done:
            options = [*COMMANDS, *self.verbs(), "standing"]
        elif done[0] == "help":
            options = [*self.verbs(), "standing"]
        elif done[0] in ("board", "map"):
            options = [*self.game.sides, PUBLIC, GM]
        elif done[0] == "standing":
            policies = self.game.standing_policies()
            options = sorted({p.kind for p in policies}) if len(done) == 1 else [
                *(p.policy for p in policies if p.kind == done[1]), "off"]
        elif done[0] == "legal":
            options = ["by", "unit", "verb", "more", "all", *self.verbs(),
                       *sorted({n for e in found for n in e.names}),
                       *sorted({p for e in found for p in e.places})]
        else:
            typed = [w.lower() for w in done]
            options = []
            for text in (t for entry in found for t in entry.variants()):
                words = text.split()
                if len(words) > len(typed) and [w.lower() for w in words[:len(typed)]] == typed:
                    options.append(words[len(typed)])
            if not options:
                options = sorted({n for e in found for n in e.names}
                                 | {p for e in found for p in e.places})
        low = partial.lower()
        return list(dict.fromkeys(o for o in options if o.lower().startswith(low)))

    # ---- the loop ---------------------------------------------------------------------------

    def run(self) -> None:
        game, local = self.game, self.local
        info = self.service.info(local.game_id)
        self.console.print(f"[bold]{escape(game.title)}[/bold] — game {local.game_id}, "
                           f"scenario {info.scenario or next(iter(game.scenarios()))}",
                           highlight=False)
        self.console.print(f"Dice commitment: {local.commitment}  (type 'help' for commands, "
                           "'legal' for what you may do)", highlight=False)
        self.console.print(self.short(game.board_text(local.view(PUBLIC))),
                           markup=False, highlight=False)
        while True:
            now = local.prompt()
            side = now.to_act
            if side is None:
                self.console.print(f"[bold]Game over:[/bold] {escape(str(now.result))}",
                                   highlight=False)
                break
            pending = now.pending
            if pending is not None and pending.side == side:
                self.console.print(f"[yellow]{paint(side, game.sides)} decides "
                                   f"({escape(pending.rule)}):[/yellow] {escape(pending.prompt)}",
                                   highlight=False)
                for option in pending.options[:12]:
                    self.console.print(f"   {escape(option.order)}   [dim]{escape(option.label)}"
                                       "[/dim]", highlight=False)
                if len(pending.options) > 12:
                    self.console.print(f"   ... {len(pending.options) - 12} more: 'legal' "
                                       "lists them all", highlight=False)
            if now.private_input:
                if not self.private_round(side, setup=True):
                    break
                continue
            try:
                line = self.io.read(f"[{side}] > ").strip()
            except (EOFError, KeyboardInterrupt):
                break
            if not line:
                continue
            if line.split()[0].lower() == "quit":
                break
            try:
                self.handle(side, line)
            except Exception as error:  # a command never ends the console with a traceback
                self.refuse(_one_line(error))
        self.finish(info.game)

    def finish(self, game_name: str) -> None:
        local = self.local
        if self.service.info(local.game_id).result is not None:
            seed, ok = local.verify_dice()
            self.console.print(f"Dice seed (check the commitment): {seed}", highlight=False)
            self.console.print("Dice verified: " + ("yes" if ok else "NO"), highlight=False)
        else:
            self.console.print(f"Game {local.game_id} is saved: resume with "
                               f"'umpire play {game_name} --resume {local.game_id}'",
                               markup=False, highlight=False)

    def handle(self, side: str, line: str) -> None:
        words = line.split()
        command = words[0].lower()
        handler = getattr(self, f"cmd_{command}", None) if command in COMMANDS else None
        if handler is not None:
            handler(side, words[1:])
        elif command == "standing":
            self.standing(side, line)
        else:
            self.orders(side, line)

    # ---- orders -----------------------------------------------------------------------------

    def orders(self, side: str, line: str) -> None:
        if any(self.game.is_secret_text(part) and order_words(part)
               and order_words(part)[0].lower() != "standing" for part in line.split(";")):
            self.say("that order is secret: use 'secret' to type it without showing it on "
                     "the screen", "yellow")
        with self.busy(line.count(";") + 1):
            result = self.local.send(side, line)
        self.report(side, line.split(";"), result)

    def report(self, side: str, lines: Sequence[str], result: SubmitResult,
               private: bool = False) -> None:
        """What happened, then — for a batch — every line: applied, refused and why, or not
        reached. A private batch names its lines only by number."""
        message = result.messages.get(PUBLIC if private else side)
        self.lines(list(message.lines) if message is not None else [])
        typed = [ln.strip() for ln in lines if order_words(ln)]
        stopped, error = result.stopped_at, result.error
        waiting = error is not None and error.startswith("stopped before line")
        if len(typed) > 1 or private:
            if result.status == "refused":
                applied_upto = 0
            else:
                applied_upto = stopped - 1 if stopped else len(typed)
            for number, text in enumerate(typed, start=1):
                what = f"line {number}" if private else f"line {number} ({text})"
                if number <= applied_upto:
                    status = "[green]applied[/green]"
                elif number == stopped and error is not None and not waiting:
                    status = f"[red]refused — {escape(error)}[/red]"
                else:
                    status = "[dim]not reached[/dim]"
                self.console.print(f"  {escape(what)}: {status}", highlight=False)
            if private and result.applied:
                self.say(f"  {len(result.applied)} private order(s) accepted")
            if waiting:
                self.say(f"  {error}", "yellow")
            elif error is not None and stopped is None:
                self.refuse(error)
            return
        if error is not None:
            self.refuse(error)
            self.hint(side, result)

    def hint(self, side: str, result: SubmitResult) -> None:
        """After a refusal that lists nothing legal: what is expected now."""
        if result.legal or result.error_rule in ("notation", "legal"):
            return
        if self.service.info(self.local.game_id).to_act != side:
            return
        verbs = list(dict.fromkeys(entry.verb for entry in self.entries(side) if entry.verb))
        if verbs:
            self.say(f"  now {side} may: {', '.join(verbs)} — 'legal' lists them", "dim")

    def standing(self, side: str, line: str) -> None:
        """A standing order, accepted wherever it is typed and kept private (only its
        side's confirmation is shown)."""
        result = self.local.send(side, line)
        if result.error is not None:
            self.refuse(result.error)
            return
        message = result.messages.get(side)
        self.lines([ln for ln in (message.lines if message else []) if "standing" in ln]
                   or ["standing order set"])

    # ---- commands ---------------------------------------------------------------------------

    def cmd_help(self, side: str, args: list[str]) -> None:
        try:
            text = (self.game.help(args[0]) if args
                    else f"{HELP}\n\nOrders:\n{self.game.help()}")
        except RuleError as error:
            self.refuse(str(error))
            return
        self.console.print(text, markup=False, highlight=False)

    def _viewer(self, side: str, args: list[str], what: str) -> str | None:
        viewer = args[0].lower() if args else side
        known = [*self.game.sides, PUBLIC, GM]
        if viewer not in known:
            self.refuse(f"no viewer {viewer!r}: {', '.join(known)}")
            return None
        if viewer not in (side, PUBLIC) and not self.confirm(
                f"The {what} as {viewer} sees it shows {viewer}'s secrets. Is everyone else "
                "looking away?"):
            self.say("not shown", "dim")
            return None
        return viewer

    def cmd_board(self, side: str, args: list[str]) -> None:
        viewer = self._viewer(side, args, "board")
        if viewer is not None:
            self.console.print(self.short(self.game.board_text(self.local.view(viewer))),
                               markup=False, highlight=False)

    def cmd_map(self, side: str, args: list[str]) -> None:
        viewer = self._viewer(side, args, "map")
        if viewer is None:
            return
        path = Path(args[1] if len(args) > 1 else f"{self.game.name}-{viewer}.png")
        self.write_map(viewer, path)

    def write_map(self, viewer: str, path: Path) -> None:
        try:
            import render

            view = self.local.view(viewer)
            data = render.render(view, render.load_pack(self.game.name, self.game.pack))
            path.write_bytes(data)
        except (ValueError, OSError) as error:
            self.refuse(str(error))
            return
        self.say(f"map written to {path}")

    def cmd_legal(self, side: str, args: list[str], setup: bool = False) -> None:
        low = [a.lower() for a in args]
        if low[:1] == ["more"]:
            if self.listing is None:
                self.say("nothing more: type 'legal' first")
                return
            self.show_page(self.listing)
            return
        everything = "all" in low
        args = [a for a in args if a.lower() != "all"]
        try:
            wanted = self.service.legal_filter(self.local.game_id, LOCAL, side, args)
        except ServiceError as error:
            self.refuse(str(error))
            return
        found = self.entries(side)
        page = listing.listing(found, wanted, side, len(found))
        self.listing = page
        self.say(page.title, "bold")
        self.show_page(page, size=len(page.lines) if everything else listing.PAGE)

    def show_page(self, page: listing.Listing, size: int = listing.PAGE) -> None:
        chunk, left = page.page(size)
        self.lines(chunk, indent="")
        if left:
            self.say(f"... {left} more line(s): 'legal more' for the next page, 'legal all' "
                     "for everything, or narrow it: legal UNIT | PLACE | VERB", "dim")

    def cmd_undo(self, side: str, args: list[str]) -> None:
        result = self.service.undo(self.local.game_id, LOCAL)
        if result.error is not None:
            self.refuse(result.error)
            return
        message = result.messages.get(PUBLIC)
        self.lines(list(message.lines) if message else ["undone"])

    def cmd_secret(self, side: str, args: list[str]) -> None:
        self.private_round(side, setup=False)

    def cmd_policies(self, side: str, args: list[str]) -> None:
        mine = self.local.prompt(side).standing
        for policy in self.game.standing_policies():
            marks = []
            if mine.get(policy.kind) == policy.policy:
                marks.append("set")
            elif policy.default and policy.kind not in mine:
                marks.append("applies by default")
            note = f" [{', '.join(marks)}]" if marks else ""
            self.console.print(escape(f"standing {policy.kind} {policy.policy}{note}: "
                                      f"{policy.description}"), highlight=False)

    def cmd_log(self, side: str, args: list[str]) -> None:
        count = (min(int(args[0]), 1000) if args and args[0].isascii() and args[0].isdigit()
                 else 10)
        for entry in self.service.log(self.local.game_id, LOCAL, count, audience=PUBLIC):
            text = entry.text if entry.text is not None else "(private)"
            self.console.print(escape(f"  {entry.seq:>4} {entry.side or '':<8} {text}"),
                               highlight=False)

    def cmd_dice(self, side: str, args: list[str]) -> None:
        self.say(f"commitment {self.local.commitment}")

    # ---- secrets ----------------------------------------------------------------------------

    def guide(self, side: str) -> None:
        """What is left to place in a secret set-up, and where."""
        found = self._setup_guide(side)
        if found is None:
            return
        self.say("Left to place:", "bold")
        self.lines(found.left)
        if found.where:
            self.say("Where:", "bold")
            self.lines(found.where)

    def _setup_guide(self, side: str) -> SetupGuide | None:
        """The guide of ``side``'s secret set-up, while it enters one."""
        if self.service.private_input(self.local.game_id) != side:
            return None
        return self.service.setup_guide(self.local.game_id, LOCAL)

    def private_round(self, side: str, setup: bool) -> bool:
        """Read private lines (not echoed) until an empty one and submit them, with the
        set-up's guidance; False when the player quits."""
        intro = (f"{side} is placing secrets: the other player looks away." if setup
                 else f"{side}: type private orders (not shown).")
        self.say(intro + " Orders are not echoed; an empty line sends them. Here 'legal', "
                 "'help', 'left' (what is left), 'map FILE' (your private picture) and "
                 "'done' work too; 'quit' leaves.")
        if setup:
            self.guide(side)
        batch: list[str] = []
        while True:
            try:
                typed = self.io.read_private("  secret> ").strip()
            except (EOFError, KeyboardInterrupt):
                self.send_private(side, batch)
                return False
            low = typed.lower().split()
            if low[:1] == ["quit"]:
                self.send_private(side, batch)
                return False
            if not typed:
                self.send_private(side, batch)
                return True
            if low[0] in ("legal", "help"):
                (self.cmd_legal if low[0] == "legal" else self.cmd_help)(side, typed.split()[1:])
            elif low[0] in ("left", "status"):
                self.guide(side)
            elif low[0] == "map":
                self.write_map(side, Path(typed.split()[1] if len(low) > 1 else
                                          f"{self.game.name}-{side}-private.png"))
            elif low == ["done"] and setup:
                self.send_private(side, batch)
                batch = []
                if self.done(side):
                    return True
            else:
                batch.append(typed)

    def send_private(self, side: str, batch: list[str]) -> None:
        if batch:
            with self.busy(len(batch)):
                result = self.local.send(side, "\n".join(batch))
            self.report(side, batch, result, private=True)
            batch.clear()

    def done(self, side: str) -> bool:
        """``done`` in a secret set-up: refused while units wait, confirmed when it gives
        something up (mines not written down); True when the set-up is over."""
        found = self._setup_guide(side)
        if found is not None and found.blocked:
            self.refuse(f"not yet: {found.blocked}")
            return False
        if found is not None and found.forfeit:
            self.say("Done now gives up: " + "; ".join(found.forfeit), "yellow")
            if not self.confirm("Really done?"):
                self.say("not done: go on placing", "dim")
                return False
        result = self.local.send(side, "done")
        if result.error is not None:
            self.refuse(result.error)
            return False
        message = result.messages.get(PUBLIC)
        self.lines(list(message.lines) if message else [])
        return True


def run_console(
    service: GameService,
    local: LocalGame,
    read: Callable[[str], str],
    console: Console,
    read_private: Callable[[str], str] | None = None,
) -> LocalGame:
    """Prompt the side to act (or owing a decision) until the game ends or input ends."""
    Session(service, local, FunctionIO(read, read_private), console).run()
    return local


class PromptIO:
    """A terminal: prompt_toolkit line editing, history across sessions (``history``),
    tab completion from the session; private lines are read without echo."""

    def __init__(self, history: Path | None = None) -> None:
        self.session: Session | None = None
        store: History = InMemoryHistory()
        if history is not None:
            try:
                history.parent.mkdir(parents=True, exist_ok=True)
                store = FileHistory(str(history))
            except OSError:
                pass
        self.prompt: PromptSession[str] = PromptSession(
            history=store, completer=_Completer(self), complete_while_typing=False)
        self.private: PromptSession[str] = PromptSession()

    def read(self, prompt: str) -> str:
        found = re.match(r"\[(\w+)\] > $", prompt)
        if found:
            side = found.group(1)
            colour = {"german": "ansiblue", "russian": "ansiyellow", "soviet": "ansired",
                      "red": "ansired", "blue": "ansiblue"}.get(side, "")
            text: AnyFormattedText = FormattedText([(f"bold {colour}", f"[{side}]"),
                                                    ("", " > ")])
        else:
            text = prompt
        return str(self.prompt.prompt(text))

    def read_private(self, prompt: str) -> str:
        return str(self.private.prompt(prompt, is_password=True))


class _Completer(Completer):
    """prompt_toolkit's completer over :meth:`Session.completions`."""

    def __init__(self, io: PromptIO) -> None:
        self.io = io

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        session = self.io.session
        if session is None:
            return
        text = document.text_before_cursor.split(";")[-1].lstrip()
        partial = "" if not text or text.endswith(" ") else text.split()[-1]
        try:
            found = session.completions(text)
        except Exception:  # completion never breaks typing
            return
        for word in found[:200]:
            yield Completion(word, start_position=-len(partial))


def play_at_terminal(service: GameService, local: LocalGame, console: Console,
                     history: Path | None) -> LocalGame:
    """Play at a real terminal (line editing, history, completion), else from stdin."""
    import sys

    if sys.stdin.isatty() and sys.stdout.isatty():
        io = PromptIO(history)
        session = Session(service, local, io, console)
        io.session = session
        session.run()
        return local
    import getpass

    return run_console(service, local, console.input, console,
                       read_private=lambda prompt: getpass.getpass(prompt))
