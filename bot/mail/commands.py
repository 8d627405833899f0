"""A mail's body as commands: one per line, the games' own notation plus Judge-like commands.

Only the writer's own text counts: quoted lines (``>``), a reply's quoted mail (``On …
wrote:``, ``-----Original Message-----``, an Outlook ``From:/Sent:`` block, a forwarded
mail), the signature after ``-- `` and the footers phone clients add are left out, and
``signoff`` ends the commands explicitly. Blank lines and ``#`` comments are skipped.

Two directives set the context of the lines that follow: ``game ID`` (else the game named
in the subject's ``[umpire ID]`` tag) and ``password SECRET`` (a seat's secret; it holds
for the whole mail). Every other line is a command named in :data:`META`, or an order in
the game's notation, passed to the game as typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

#: Commands the gateway answers itself (every other line is an order for the game).
META = {
    # anyone
    "help", "list", "games", "create", "new", "join", "observe", "unobserve", "status",
    "brief",
    # a seat or observer of the game
    "map", "log", "legal", "standing", "policies", "decide", "undo", "resign", "placed",
    "link",
    # the game's GM
    "start", "override", "rollback", "confirm", "pause", "resume", "seat", "unseat",
    "secret", "deadline", "seed",
}
#: Directives: they set the context, they are not commands.
DIRECTIVES = {"game", "password", "pw"}
SIGNOFF = {"signoff", "sign-off", "end-of-orders"}

SUBJECT_TAG = re.compile(r"\[umpire\s+([A-Za-z0-9_-]{1,64})\]", re.IGNORECASE)
ATTRIBUTION = re.compile(
    r"^(on\b.*|am\b.*|le\b.*|el\b.*|il\b.*|op\b.*)?\b(wrote|schrieb|a écrit|escribió|"
    r"ha scritto|schreef)\s*:\s*$", re.IGNORECASE)
ATTRIBUTION_START = re.compile(r"^(on|am|le|el|il|op)\s", re.IGNORECASE)
SEPARATORS = re.compile(
    r"^(-{2,}\s*(original message|ursprüngliche nachricht|message d'origine|forwarded "
    r"message)\s*-{2,}|_{10,}|begin forwarded message:)\s*$", re.IGNORECASE)
FOOTERS = re.compile(
    r"^(sent from my \w+|sent from (mail|outlook) for \w+|get outlook for \w+|"
    r"sent from yahoo mail.*|sent with proton ?mail.*|envoyé de mon \w+|"
    r"von meinem \w+ gesendet)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Line:
    """One command line: its number in the writer's own text, its words."""

    number: int
    text: str

    @property
    def words(self) -> list[str]:
        return self.text.split()

    @property
    def name(self) -> str:
        return self.words[0].lower() if self.words else ""

    @property
    def rest(self) -> str:
        parts = self.text.split(None, 1)
        return parts[1].strip() if len(parts) > 1 else ""


@dataclass
class Script:
    """What a mail asks, in order; its ``password`` holds for the whole mail."""

    subject_game: str | None
    lines: list[Line] = field(default_factory=list)
    #: The seat secret of the mail's first password line (one per mail is read).
    password: str | None = None
    #: Password lines after the first: refused unread (never checked against a seat).
    extra_passwords: int = 0
    #: Lines beyond the limit, refused unread.
    dropped: int = 0


def subject_game(subject: str) -> str | None:
    found = SUBJECT_TAG.search(subject)
    return found.group(1) if found else None


def own_text(text: str) -> list[tuple[int, str]]:
    """The writer's own lines (numbered from 1), quotes, signature and footers left out."""
    return list(_own_lines(text.split("\n")))


def _own_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """:func:`own_text`, one line at a time (a reader may stop early)."""
    for index, raw in enumerate(lines):
        line = raw.strip()
        if raw.rstrip("\r") in ("-- ", "--") or line.lower() in SIGNOFF:
            break
        if line.startswith(">") or line.startswith("|>"):
            continue  # a quote (no quote line ends the writer's text)
        if SEPARATORS.match(line) or FOOTERS.match(line) or ATTRIBUTION.match(line):
            break
        if ATTRIBUTION_START.match(line) and index + 1 < len(lines) and \
                ATTRIBUTION.match(lines[index + 1].strip()):
            break  # "On Mon, 1 Jan 2026, Ann <ann@example.org>" / "wrote:" on two lines
        if _outlook_header(lines, index):
            break
        yield index + 1, line


def _outlook_header(lines: list[str], index: int) -> bool:
    """A quoted mail's header block: ``From: …`` with ``Sent:``/``Date:`` right after."""
    if not re.match(r"^(from|von|de):\s", lines[index].strip(), re.IGNORECASE):
        return False
    after = [line.strip().lower() for line in lines[index + 1:index + 4]]
    return any(re.match(r"^(sent|date|gesendet|envoyé|to|an):", line) for line in after)


def _rest(lines: list[str]) -> int:
    """The lines after the limit that would have been read, counted cheaply: up to the
    signature, without blank lines, quotes and comments (no quoted-mail detection)."""
    count = 0
    for raw in lines:
        if raw.rstrip("\r") in ("-- ", "--"):
            break
        line = raw.strip()
        if line and not line.startswith((">", "|>", "#")):
            count += 1
    return count


def parse_script(subject: str, text: str, max_commands: int) -> Script:
    """The commands of a mail (see the module notes).

    A mail's work is bounded: at most ``max_commands`` lines are read, password lines
    included, and only the first password line is kept (each one read would cost a slow
    hash check); later ones are counted in :attr:`Script.extra_passwords` and refused."""
    script = Script(subject_game=subject_game(subject))
    read = 0
    lines = text.split("\n")
    for number, line in _own_lines(lines):
        content = line.split("#", 1)[0].strip() if not line.lower().startswith(
            ("password", "pw ")) else line.strip()
        if not content:
            continue
        if read >= max_commands:
            script.dropped = 1 + _rest(lines[number:])
            break
        read += 1
        first = content.split(None, 1)[0].lower()
        if first in ("password", "pw"):
            secret = content.split(None, 1)[1].strip() if " " in content else ""
            if script.password is not None:
                script.extra_passwords += 1
            elif secret:
                script.password = secret.split()[0]
            continue
        script.lines.append(Line(number, content))
    return script
