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
from collections import Counter
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

from adjudicator.kernel.decisions import PendingDecision, SetupGuide
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.game import Game
from adjudicator.kernel.views import View
from bot import commands as catalogue
from bot import decision_options, listing
from bot.records import verify
from bot.screen import Screen
from bot.service import Actor, GameService, Prompt, ServiceError, SubmitResult
from bot.service.models import (
    CONFIRM_RULE,
    PRIVATE_CHANNEL,
    SHARED_CHANNEL,
    Channel,
)

#: The person at the console: seated for every side and as GM of their local games.
LOCAL = Actor(email="console@localhost")

#: Console commands: name -> (usage, what it does), from the one catalogue
#: (:mod:`bot.commands`). Anything else is an order.
COMMANDS: dict[str, tuple[str, str]] = {
    c.names["console"]: (f"{c.names['console']} {c.args}".strip(), c.summary)
    for c in catalogue.of("console")}

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

    def send(self, side: str, text: str, channel: Channel = PRIVATE_CHANNEL, *,
             confirmed: bool = True) -> SubmitResult:
        """The service's one submission (:meth:`GameService.submit`); ``channel`` public for
        the shared screen, where the service refuses a secret order."""
        # one typed line may hold several orders separated by ';'
        return self.service.submit(self.game_id, LOCAL, text.replace(";", "\n"),
                                   side=side, channel=channel, confirmed=confirmed)

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
        try:
            return self.reader(prompt)
        except StopIteration:  # lines from an iterator: its end is the input's end
            raise EOFError from None

    def read_private(self, prompt: str) -> str:
        try:
            return (self.private_reader or self.reader)(prompt)
        except StopIteration:
            raise EOFError from None


def _one_line(error: Exception) -> str:
    """An unexpected error as one line for the console (the game is stored; go on)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return f"could not do that: {text[:200]}"


class Session:
    """The console's loop and commands over one :class:`LocalGame`.

    Everything it prints goes through :attr:`screen` with its audience: the public, or the
    side (or GM) whose View it came from (:meth:`audience_of`). A hot-seat screen shows a
    side's secrets only behind that side's look-away step; a seated one (``seat``) shows
    that side's and the public's only."""

    def __init__(self, service: GameService, local: LocalGame, io: ConsoleIO,
                 console: Console, seat: str | None = None) -> None:
        self.service = service
        self.local = local
        self.game = local.rules
        self.io = io
        self.console = console
        self.seat = seat
        self.screen = Screen(console, lambda prompt: self.io.read(prompt), seat)
        self.listing: listing.Listing | None = None
        self._entries: tuple[tuple[int, str], list[listing.Entry]] | None = None
        self._audiences: dict[tuple[int, str], str] = {}
        self.seen = local.head  # seated: the newest action shown at this terminal
        #: the decision last listed at this prompt (kind, side, prompt) and the action then
        self._decision: tuple[tuple[str, str, str], int] | None = None

    # ---- output ---------------------------------------------------------------------------

    def audience_of(self, viewer: str) -> str:
        """Who may read what is computed for ``viewer`` now: ``viewer`` while its View holds
        anything the public View does not (hidden units, mines, face-down identities, a
        standing order it set), else the public: then what it is told follows from what
        everybody knows (a decision's options are left out of the comparison: only the
        owner's View has them)."""
        key = (self.local.head, viewer)
        if key not in self._audiences:
            if viewer == PUBLIC:
                return PUBLIC
            skip = {"viewer", "pending"}
            mine = self.local.view(viewer).model_dump(mode="json", exclude=skip)
            public = self.local.view(PUBLIC).model_dump(mode="json", exclude=skip)
            self._audiences[key] = PUBLIC if mine == public else viewer
        return self._audiences[key]

    def short(self, text: str) -> str:
        """``text`` with unit ids written by their short names (``g14pz:i/103`` ->
        ``i/103``), as a player types them."""
        return self.service.short_texts(self.local.game_id, [text])[0]

    def say(self, text: str, style: str | None = None, audience: str = PUBLIC) -> bool:
        markup = paint(text, self.game.sides)
        return self.screen.show(audience, f"[{style}]{markup}[/]" if style else markup)

    def plain(self, text: str, audience: str = PUBLIC) -> bool:
        """``text`` as it is (no markup, no colour)."""
        return self.screen.show(audience, text, markup=False)

    def lines(self, lines: Sequence[str], indent: str = "  ", audience: str = PUBLIC) -> bool:
        shown = self.service.short_texts(self.local.game_id, lines) if lines else []
        return self.screen.show_all(audience, [indent + paint(line, self.game.sides)
                                               for line in shown])

    def refuse(self, text: str, audience: str = PUBLIC) -> None:
        self.screen.show(audience, f"[red]{escape(text)}[/red]")

    def told(self, result: SubmitResult, side: str) -> None:
        """What a result told: the public's lines, then what only ``side`` was told (behind
        its look-away step while its View holds secrets)."""
        public = result.messages.get(PUBLIC)
        shown = list(public.lines) if public is not None else []
        own = result.messages.get(side)
        rest = Counter(shown)
        extra = []
        for line in own.lines if own is not None else []:
            if rest[line]:
                rest[line] -= 1
            else:
                extra.append(line)
        self.lines(shown)
        if extra:
            self.lines(extra, audience=self.audience_of(side))

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
        first, then — from the legal orders of the moment — units, Areas and hexes (those
        only where the screen may show that side's secrets)."""
        parts = line.split()
        partial = "" if not parts or line.endswith(" ") else parts[-1]
        done = parts if partial == "" else parts[:-1]
        side = side or self.seat or self.service.info(self.local.game_id).to_act
        found = self.entries(side) if side is not None else []
        if (side is not None and self.seat is None and self.screen.private_to != side
                and self.audience_of(side) != PUBLIC):
            found = []  # a shared screen: no unit of side's may be offered on it
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
        self.screen.show(PUBLIC, f"[bold]{escape(game.title)}[/bold] — game {local.game_id}, "
                         f"scenario {info.scenario_name}")
        self.cmd_brief("", [])
        self.plain(f"Dice commitment: {local.commitment}  (type 'help' for commands, "
                   "'legal' for what you may do)")
        if self.seat is not None:
            self.say(f"This terminal plays {self.seat} (another terminal may play the other "
                     "side on the same stored game).")
        self.plain(self.short(game.board_text(local.view(self.seat or PUBLIC))),
                   self.seat or PUBLIC)
        while True:
            now = local.prompt()
            to_act = now.to_act
            if to_act is None:
                self.screen.close()
                self.screen.show(PUBLIC, f"[bold]Game over:[/bold] {escape(str(now.result))}")
                break
            side = self.seat or to_act
            if self.seat is None and self.screen.private_to not in (None, side):
                self.screen.close()  # hand the screen over before another side's prompt
                self._decision = None
            if self.seat is not None:
                self.news()
            pending = now.pending
            if pending is not None and pending.side == side:
                self.show_decision(side, pending)
            else:
                self._decision = None
            if now.private_input and side == to_act:
                went = self.private_round(side, setup=True)
                if went is False:
                    break
                if went:
                    continue
            if to_act != side:
                self.say(f"{to_act} to act: press Enter to look again (what the other terminal "
                         "does shows here when you act or press Enter)", "dim")
            try:
                line = self.io.read(f"[{side}] > ").strip()
            except (EOFError, KeyboardInterrupt):
                break
            if not line:
                self.screen.close()
                self._decision = None  # the list went with the screen: show it again
                continue
            if line.split()[0].lower() == "quit":
                break
            try:
                self.handle(side, line)
            except Exception as error:  # a command never ends the console with a traceback
                self.refuse(_one_line(error), self.audience_of(side))
        self.screen.close(ask=False)  # the player leaves: no secret stays on the screen
        self.finish(info.game)

    def show_decision(self, side: str, pending: PendingDecision) -> None:
        """``side``'s pending decision: its question (public), then its options behind
        ``side``'s look-away step while its View holds secrets — written with the short
        names players type (the stored options keep their ids), listed best first and
        grouped when long (:func:`decision_options.option_lines`). Asked again after an
        answer that left it open (a shot, 5.1), one line says what is left instead."""
        key = (pending.kind, pending.side, pending.prompt)
        orders = pending.option_orders()
        texts = self.service.short_texts(self.local.game_id, [
            *orders, *(o.label for o in pending.options), pending.default])
        shown = list(zip(texts[:len(orders)], texts[len(orders):-1], strict=True))
        audience = self.audience_of(side)
        last, self._decision = self._decision, (key, self.local.head)
        header = (f"[yellow]{paint(side, self.game.sides)} decides "
                  f"({escape(pending.rule)}):[/yellow] ")
        if last is not None and last[0] == key:
            if last[1] != self.local.head:  # answered, still open: what is left
                self.screen.show(PUBLIC, header + "still open")
                self.screen.show(audience, "   " + escape(decision_options.options_left(
                    shown, texts[-1])))
            return
        self.screen.show(PUBLIC, header + escape(pending.prompt.removeprefix(f"{side}: ")))
        self.screen.show_all(audience, [f"   {escape(line)}" for line in
                                        decision_options.option_lines(shown)])

    def news(self) -> None:
        """Seated: the actions stored since this terminal last looked (the other terminal's
        among them), as this seat may read them."""
        head = self.local.head
        if head <= self.seen:
            return
        assert self.seat is not None
        for entry in self.service.log(self.local.game_id, LOCAL, head - self.seen,
                                      audience=self.seat):
            if entry.seq > self.seen and entry.side != self.seat:
                text = entry.text if entry.text is not None else "(private)"
                self.plain(f"  {entry.seq:>4} {entry.side or '':<8} {text}", self.seat)
                self.lines(entry.lines, indent="       ", audience=self.seat)
        self.seen = head

    def finish(self, game_name: str) -> None:
        local = self.local
        if self.service.info(local.game_id).result is not None:
            seed, ok = local.verify_dice()
            self.plain(f"Dice seed (check the commitment): {seed}")
            self.plain("Dice verified: " + ("yes" if ok else "NO"))
        else:
            seat = f" --seat {self.seat}" if self.seat else ""
            self.plain(f"Game {local.game_id} is saved: resume with "
                       f"'umpire play {game_name} --resume {local.game_id}{seat}'")

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
        self.seen = self.local.head

    # ---- orders -----------------------------------------------------------------------------

    def orders(self, side: str, line: str) -> None:
        shared = self.seat is None  # a hot-seat screen both players see
        with self.busy(line.count(";") + 1):
            result = self.local.send(side, line, SHARED_CHANNEL if shared else PRIVATE_CHANNEL)
        if result.secret_lines:  # the service says: typed where the other side could read
            self.say("that order is secret: use 'secret' to type it without showing it on "
                     "the screen", "yellow")
        self.report(side, result)

    def report(self, side: str, result: SubmitResult, private: bool = False) -> None:
        """What happened, then — for a batch — every line as the service numbered it:
        applied, refused and why, or not reached. A private batch is reported to its side
        alone (its screen is private to it): each line with its order."""
        self.told(result, side)
        typed = result.lines  # numbered as the service read them
        stopped, error = result.stopped_at, result.error
        waiting = error is not None and error.startswith("stopped before line")
        errors = side if private else self.audience_of(side)
        if len(typed) > 1 or private:
            if result.status == "refused":
                applied_upto = 0
            else:
                applied_upto = stopped - 1 if stopped else len(typed)
            for number, text in enumerate(typed, start=1):
                what = f"line {number} ({text})"
                if number <= applied_upto:
                    status = "[green]applied[/green]"
                elif number == stopped and error is not None and not waiting:
                    status = f"[red]refused — {escape(error)}[/red]"
                else:
                    status = "[dim]not reached[/dim]"
                self.screen.show(side if private else PUBLIC, f"  {escape(what)}: {status}")
            if waiting:
                self.say(f"  {error}", "yellow")
            elif error is not None and stopped is None:
                self.refuse(error, errors)
            return
        if error is not None:
            self.refuse(error, errors)
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
        side's confirmation is shown, to that side)."""
        result = self.local.send(side, line)
        if result.error is not None:
            self.refuse(result.error, side)
            return
        message = result.messages.get(side)
        self.lines([ln for ln in (message.lines if message else []) if "standing" in ln]
                   or ["standing order set"], audience=side)

    # ---- commands ---------------------------------------------------------------------------

    def cmd_help(self, side: str, args: list[str]) -> None:
        if args and args[0].lower() == self.game.name:  # help GAME [VERB]: this game's
            args = args[1:]
        named = catalogue.command(args[0]) if args else None
        if named is not None and args[0].lower() in COMMANDS:  # help map: the command
            self.plain(named.help())
            return
        try:
            text = (self.game.help(args[0]) if args
                    else f"{HELP}\n\nOrders:\n{self.game.help()}")
        except RuleError as error:
            self.refuse(str(error))
            return
        self.plain(text)

    def _viewer(self, side: str, args: list[str]) -> str | None:
        viewer = args[0].lower() if args else side
        known = [*self.game.sides, PUBLIC, GM]
        if viewer not in known:
            self.refuse(f"no viewer {viewer!r}: {', '.join(known)}")
            return None
        if self.seat is not None and viewer not in (self.seat, PUBLIC):
            self.refuse(f"this terminal plays {self.seat}: it shows {self.seat}'s view and "
                        "the public one")
            return None
        return viewer

    def cmd_board(self, side: str, args: list[str]) -> None:
        viewer = self._viewer(side, args)
        if viewer is not None:
            self.plain(self.short(self.game.board_text(self.local.view(viewer))),
                       self.audience_of(viewer))

    def cmd_map(self, side: str, args: list[str]) -> None:
        if len(args) == 1 and args[0].lower() not in (*self.game.sides, PUBLIC, GM):
            args = [side, args[0]]  # `map FILE`: your own view, as help's [SIDE] default
        viewer = self._viewer(side, args)
        if viewer is None:
            return
        path = Path(args[1] if len(args) > 1 else f"{self.game.name}-{viewer}.png")
        self.write_map(viewer, path)

    def write_map(self, viewer: str, path: Path) -> None:
        """Write ``viewer``'s picture, once the screen may show ``viewer``'s secrets (a
        picture is opened on the same screen)."""
        audience = self.audience_of(viewer)
        if audience != PUBLIC and not self.screen.open(audience):
            return
        try:
            import render

            view = self.local.view(viewer)
            data = render.render(view, render.load_pack(self.game.name, self.game.pack))
            path.write_bytes(data)
        except (ValueError, OSError) as error:
            self.refuse(str(error), audience)
            return
        self.say(f"map written to {path}", audience=audience)

    def cmd_legal(self, side: str, args: list[str], setup: bool = False) -> None:
        audience = self.audience_of(side)
        low = [a.lower() for a in args]
        if low[:1] == ["more"]:
            if self.listing is None:
                self.say("nothing more: type 'legal' first")
                return
            self.show_page(self.listing, audience=audience)
            return
        everything = "all" in low
        args = [a for a in args if a.lower() != "all"]
        try:
            wanted = self.service.legal_filter(self.local.game_id, LOCAL, side, args)
        except ServiceError as error:
            self.refuse(str(error), audience)
            return
        found = self.entries(side)
        page = listing.listing(found, wanted, side, len(found), brief=not everything)
        self.listing = page
        if self.say(page.title, "bold", audience=audience):
            self.show_page(page, size=len(page.lines) if everything else listing.PAGE,
                           audience=audience)

    def show_page(self, page: listing.Listing, size: int = listing.PAGE,
                  audience: str = PUBLIC) -> None:
        chunk, left = page.page(size)
        self.lines(chunk, indent="", audience=audience)
        if left:
            self.say(f"... {left} more line(s): 'legal more' for the next page, 'legal all' "
                     "for everything, or narrow it: legal UNIT | PLACE | VERB", "dim")

    def cmd_undo(self, side: str, args: list[str]) -> None:
        result = self.service.undo(self.local.game_id, LOCAL)
        if result.error is not None:
            self.refuse(result.error)
            return
        if not result.messages:
            self.lines(["undone"])
        self.told(result, side)

    def cmd_secret(self, side: str, args: list[str]) -> None:
        self.private_round(side, setup=False)

    def cmd_policies(self, side: str, args: list[str]) -> None:
        mine = self.local.prompt(side).standing
        shown = []
        for policy in self.game.standing_policies():
            marks = []
            if mine.get(policy.kind) == policy.policy:
                marks.append("set")
            elif policy.default and policy.kind not in mine:
                marks.append("applies by default")
            note = f" [{', '.join(marks)}]" if marks else ""
            shown.append(escape(f"standing {policy.kind} {policy.policy}{note}: "
                                f"{policy.description}"))
        self.screen.show_all(self.audience_of(side), shown)  # a standing order set is secret

    def cmd_placed(self, side: str, args: list[str]) -> None:
        self.placed(side)

    def cmd_left(self, side: str, args: list[str]) -> None:
        if self._setup_guide(side) is None:
            self.refuse("'left' lists a secret set-up while it is entered", side)
            return
        self.guide(side)

    def cmd_brief(self, side: str, args: list[str]) -> None:
        """The scenario's briefing (public: it comes from the scenario, not the state)."""
        self.plain(self.service.briefing(self.local.game_id, LOCAL).text())

    def cmd_log(self, side: str, args: list[str]) -> None:
        count = (min(int(args[0]), 1000) if args and args[0].isascii() and args[0].isdigit()
                 else 10)
        for entry in self.service.log(self.local.game_id, LOCAL, count, audience=PUBLIC):
            text = entry.text if entry.text is not None else "(private)"
            self.plain(f"  {entry.seq:>4} {entry.side or '':<8} {text}")

    def cmd_dice(self, side: str, args: list[str]) -> None:
        self.say(f"commitment {self.local.commitment}")

    # ---- secrets ----------------------------------------------------------------------------

    def guide(self, side: str) -> None:
        """What is left to place in a secret set-up, and where."""
        found = self._setup_guide(side)
        if found is None:
            return
        self.say("Left to place:", "bold", audience=side)
        self.lines(found.left, audience=side)
        if found.where:
            self.say("Where:", "bold", audience=side)
            self.lines(found.where, audience=side)

    def placed(self, side: str) -> None:
        """``placed``: what ``side`` has set up so far (units, hexes, facing, hidden or not,
        mines), from the service for its own seat."""
        found = self._setup_guide(side)
        if found is None:
            self.refuse("'placed' lists a secret set-up while it is entered", side)
            return
        self.say("Placed:", "bold", audience=side)
        self.lines(found.placed or ["nothing yet"], audience=side)

    def _setup_guide(self, side: str) -> SetupGuide | None:
        """The guide of ``side``'s secret set-up, while it enters one."""
        if self.service.private_input(self.local.game_id) != side:
            return None
        return self.service.setup_guide(self.local.game_id, LOCAL)

    def private_round(self, side: str, setup: bool) -> bool | None:
        """Read private lines (not echoed) behind ``side``'s look-away step and submit them
        when an empty line comes, echoing each to ``side``, with the set-up's guidance.
        False when the player quits; None when the look-away step was declined."""
        intro = (f"{side} is placing secrets: the other player looks away." if setup
                 else f"{side}: type private orders (not shown).")
        self.say(intro)
        if not self.screen.open(side):
            return None
        self.say("Orders are not echoed as typed; an empty line sends them and clears the "
                 "screen. Here 'legal', 'help', 'left' (what is left), 'placed' (what you "
                 "placed), 'board' (your view), 'undo', 'remove UNIT|HEX', 'map FILE' (your "
                 "private picture) and 'done' work too; 'quit' leaves.", audience=side)
        if setup:
            self.guide(side)
        batch: list[str] = []
        try:
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
                if low[0] not in ("legal", "help", "left", "status", "placed", "board", "undo",
                                  "map", "done"):
                    batch.append(typed)
                    continue
                self.send_private(side, batch)
                if low[0] in ("legal", "help"):
                    (self.cmd_legal if low[0] == "legal" else self.cmd_help)(
                        side, typed.split()[1:])
                elif low[0] in ("left", "status"):
                    self.guide(side)
                elif low[0] == "placed":
                    self.placed(side)
                elif low[0] == "board":
                    self.plain(self.short(self.game.board_text(self.local.view(side))), side)
                elif low[0] == "undo":
                    self.cmd_undo(side, [])
                elif low[0] == "map":
                    self.write_map(side, Path(typed.split()[1] if len(low) > 1 else
                                              f"{self.game.name}-{side}-private.png"))
                elif low == ["done"] and setup:
                    if self.done(side):
                        return True
                else:
                    batch.append(typed)
        finally:
            self.screen.close()

    def send_private(self, side: str, batch: list[str]) -> None:
        if batch:
            with self.busy(len(batch)):
                result = self.local.send(side, "\n".join(batch))
            self.report(side, result, private=True)
            batch.clear()

    def done(self, side: str) -> bool:
        """``done`` in a secret set-up: refused while units wait, confirmed when it gives
        something up (mines not written down); True when the set-up is over."""
        found = self._setup_guide(side)
        if found is not None and found.blocked:
            self.refuse(f"not yet: {found.blocked}", side)
            return False
        result = self.local.send(side, "done", confirmed=False)
        if result.error_rule == CONFIRM_RULE:  # the service asks: done gives something up
            self.say(str(result.error).split(". Send done again")[0], "yellow", audience=side)
            if not self.confirm("Really done?"):
                self.say("not done: go on placing", "dim", audience=side)
                return False
            result = self.local.send(side, "done")
        if result.error is not None:
            self.refuse(result.error, side)
            return False
        self.told(result, side)
        return True


def run_console(
    service: GameService,
    local: LocalGame,
    read: Callable[[str], str],
    console: Console,
    read_private: Callable[[str], str] | None = None,
    seat: str | None = None,
) -> LocalGame:
    """Prompt the side to act (or owing a decision) until the game ends or input ends;
    ``seat``: this console plays that side only (another console may play the other)."""
    Session(service, local, FunctionIO(read, read_private), console, seat).run()
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
        # private lines: masked as typed; Tab completes from the side's legal orders (the
        # screen is then private to that side: see Session.private_round)
        self.private: PromptSession[str] = PromptSession(
            completer=_Completer(self), complete_while_typing=False)

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
                     history: Path | None, seat: str | None = None) -> LocalGame:
    """Play at a real terminal (line editing, history, completion), else from stdin;
    ``seat``: as that side only."""
    import sys

    if sys.stdin.isatty() and sys.stdout.isatty():
        io = PromptIO(history)
        session = Session(service, local, io, console, seat)
        io.session = session
        session.run()
        return local
    import getpass

    return run_console(service, local, console.input, console,
                       read_private=lambda prompt: getpass.getpass(prompt), seat=seat)
