"""Text for Discord, built only from the service's per-audience messages and Views.

Nothing here sees a game state. Every function takes what one audience may know (a
:class:`~bot.messages.Message` or a :class:`View`) and lays it out within Discord's
limits (2,000 characters of content; longer texts are cut with a pointer to the rest).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from adjudicator.kernel.briefing import Briefing
from adjudicator.kernel.decisions import SetupGuide
from adjudicator.kernel.errors import LEGAL_SEPARATOR
from adjudicator.kernel.views import View
from bot.durations import bounded
from bot.messages import LogEntry, Message
from bot.service import GameInfo, SubmitResult

CONTENT_LIMIT = 2000
#: Room kept for the header and footer lines around the event lines.
BODY_LIMIT = 1700

#: The answer to a secret order given in a thread (the service refused it, rule
#: ``secret``: nothing was applied or kept).
SECRET_REFUSAL = ("Secret orders are accepted only in a direct message with me; nothing you "
                  "typed was applied or kept here. Open a DM with Umpire and use the command "
                  "there.")


def clip(text: str, limit: int = CONTENT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 2].rstrip() + " …"


def briefing(brief: Briefing) -> str:
    """A scenario's briefing as a post: its text in a block, so that the indented lines of
    victory and special rules keep their shape (clipped to what Discord takes)."""
    head = f"**Briefing** — {brief.title}\n"
    return head + "```\n" + clip(brief.text(), CONTENT_LIMIT - len(head) - 8) + "\n```"


def deadline_at(at: float, now: float) -> str:
    """When a deadline ends, as Discord shows a time (``in 5 hours``); one stored endless
    before the bound (:mod:`bot.durations`) reads as the longest period from now."""
    return f"<t:{int(now + bounded(at - now))}:R>"


def clip_lines(lines: Sequence[str], limit: int = BODY_LIMIT, more: str = "/game log") -> str:
    """Lines joined, cut at whole lines to fit ``limit``, saying how many were left out."""
    out: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        line = clip(line, 300)
        if used + len(line) + 1 > limit:
            out.append(f"… {len(lines) - index} more line(s) — see {more}")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def code_block(text: str, limit: int = 1900) -> str:
    body = text.replace("```", "'''")
    if len(body) + 8 > limit:
        body = body[: limit - 20].rstrip() + "\n…"
    return f"```\n{body}\n```"


def code_pages(title: str, text: str, limit: int = CONTENT_LIMIT) -> list[str]:
    """``text`` as code blocks cut at whole lines into messages of at most ``limit``
    characters, the first headed by ``title``, each marked "page i/n" when there are
    several (a long help is never cut mid-word)."""
    room = limit - len(title) - 40
    chunks: list[list[str]] = [[]]
    used = 0
    for line in text.replace("```", "'" * 3).splitlines():
        line = clip(line, room)
        if chunks[-1] and used + len(line) + 1 > room:
            chunks.append([])
            used = 0
        chunks[-1].append(line)
        used += len(line) + 1
    pages = []
    for index, lines in enumerate(chunks, 1):
        mark = f" (page {index}/{len(chunks)})" if len(chunks) > 1 else ""
        head = f"{title if index == 1 else ''}{mark}".strip()
        pages.append(f"{head}\n```\n" + "\n".join(lines) + "\n```")
    return pages


def undone_lines(entries: Sequence[LogEntry]) -> list[str]:
    """The actions a rollback takes back, in players' words (no action numbers): who
    gave which order and what it did, as the reader may see them (a secret as
    "(secret)")."""
    out = []
    for entry in entries:
        said = entry.text or ("(secret)" if entry.withheld else entry.kind)
        what = "; ".join(entry.lines)
        who = entry.side or ("GM" if "override" in f"{entry.kind} {said}" else "Umpire")
        out.append(f"- {who}: {said}" + (f" — {what}" if what else ""))
    return out


def undone_post(content: str) -> str:
    """A thread post whose action a rollback undid: marked, each line struck through."""
    struck = [f"~~{line}~~" if line.strip() else line for line in content.splitlines()]
    return clip("*(undone by the GM)*\n" + "\n".join(struck))


def moment(view: View) -> str:
    """Where a game stands, in its own terms (its date or turn, and phase), from a view's
    public fields: "Sep 13, rubble phase" or "turn 2, move1 phase"."""
    parts = []
    date, turn, phase = (getattr(view, name, None) for name in ("date_label", "turn", "phase"))
    if date:
        parts.append(str(date))
    elif isinstance(turn, int):
        parts.append(f"turn {turn}")
    if phase:
        parts.append(f"{phase} phase")
    return ", ".join(parts) or "an earlier moment"


ROLLBACK_LINE = re.compile(r"^The GM rolled the game back to action \d+ \((\d+) action\(s\) "
                           r"reverted\)")


def rollback_line(line: str, where: str) -> str:
    """The service's rollback notice in game terms: "back to Sep 13, rubble phase (3
    order(s) undone)" rather than an action number players never see."""
    return ROLLBACK_LINE.sub(lambda m: f"The GM rolled the game back to {where} "
                             f"({m[1]} order(s) undone)", line)


def mention(user_id: str | int) -> str:
    return f"<@{user_id}>"


def mentions(user_ids: Sequence[str]) -> str:
    return " ".join(mention(u) for u in user_ids)


def thread_name(title: str, game_id: str) -> str:
    """A thread name carrying the game id (Discord allows 100 characters)."""
    suffix = f" [{game_id}]"
    return clip(title, 100 - len(suffix)) + suffix


def public_post(message: Message, actor_side: str | None, to_act_mentions: str,
                owing_mentions: str) -> str:
    """The one public message after an action: what everyone may know, who acts next."""
    header = f"**{actor_side}**" if actor_side else "**Umpire**"
    body = clip_lines(message.lines)
    parts = [header, body] if body else [header]
    if message.result:
        parts.append(f"**Game over: {message.result}**")
    elif message.prompt:
        parts.append(f"{owing_mentions} {message.prompt}".strip())
    elif message.to_act:
        parts.append(f"To act: **{message.to_act}** {to_act_mentions}".rstrip())
    return clip("\n".join(parts))


def private_lines(message: Message, public_lines: Sequence[str]) -> list[str]:
    """What a side's message tells beyond the public one."""
    public = set(public_lines)
    return [line for line in message.lines if line not in public]


def private_post(message: Message, game_label: str, public_lines: Sequence[str]) -> str | None:
    """A side's DM after an action: what it learned beyond the public message, and
    nothing else (no board text repeating the public map: ``/game map private:true``
    shows the side's whole view on request).

    None when the side learned nothing private (no DM is sent then).
    """
    private = private_lines(message, public_lines)
    if not private:
        return None
    return clip("\n".join([f"**{game_label}** — for **{message.audience}** only:",
                           clip_lines(private, 1700)]))


def nearest(legal: Sequence[str], typed: str) -> list[str]:
    """``legal`` with the orders nearest what was typed first: each typed word scores the
    longest start it shares with a word of the order (the same unit and verb count whole,
    hex 1811 shares "181" with 1812, hex 0101 only "1"), so an error's short list shows
    the choices near the target, never from hex 0101 on (issue 29)."""
    lines = [line.strip().casefold() for line in typed.splitlines() if line.strip()]
    if not lines or not legal:
        return list(legal)
    wanted = lines[-1].split()

    def shared(a: str, b: str) -> int:
        count = 0
        for x, y in zip(a, b, strict=False):
            if x != y:
                break
            count += 1
        return count

    def score(order: str) -> int:
        words = order.casefold().split()
        return -sum(max((shared(w, o) for o in words), default=0) for w in wanted)

    return sorted(legal, key=score)


def refusal(error: str | None, rule: str | None, legal: Sequence[str],
            limit: int = CONTENT_LIMIT) -> str:
    """An ephemeral error: what was wrong, the rule that says so, what is legal."""
    text = error or "not accepted"
    if rule and text.startswith(f"{rule}: "):
        text = text[len(rule) + 2 :]
    text = text.split(LEGAL_SEPARATOR, 1)[0]
    head = f"**Not accepted** (rule {rule}): {text}" if rule else f"**Not accepted**: {text}"
    if not legal:
        return clip(head, limit)
    shown: list[str] = []
    room = limit - len(head) - 40
    for option in legal:
        item = f"`{option}`"
        if sum(len(s) + 3 for s in shown) + len(item) > room:
            break
        shown.append(item)
    more = f" (+{len(legal) - len(shown)} more)" if len(shown) < len(legal) else ""
    return clip(f"{head}\nLegal now: {' · '.join(shown)}{more}", limit)


def board_post(title: str, viewer: str, board: str, to_act: str | None,
               result: str | None, prompt: str | None) -> str:
    """``/game map`` without a picture: the board text of one view."""
    status = f"Game over: {result}" if result else (f"To act: {to_act}" if to_act else "")
    head = f"**{title}** — {viewer} view" + (f" · {status}" if status else "")
    lines = [head]
    if prompt:
        lines.append(prompt)
    lines.append(code_block(board, CONTENT_LIMIT - len("\n".join(lines)) - 2))
    return clip("\n".join(lines))


def game_label(info: GameInfo) -> str:
    return f"{info.game} [{info.id}]"


def result_ack(result: SubmitResult) -> str:
    """The actor's own (ephemeral) acknowledgement of what was stored."""
    applied = ", ".join(f"`{text}`" for text in result.applied) or "nothing"
    text = f"Applied: {applied}"
    if result.status == "partial":
        text += "\n" + refusal(result.error, result.error_rule, result.legal)
        if result.stopped_at:
            text += f"\nLines after line {result.stopped_at} were not reached."
    return clip(text)


def setup_guide(guide: SetupGuide) -> str:
    """A secret set-up's guidance for its player's DM: what is placed so far (its own
    secrets: only ever sent to that side, in a DM or an ephemeral answer), what is left,
    where, what ``done`` would give up."""
    lines = []
    if guide.placed:
        lines += ["**Placed so far** (only you see this):",
                  clip_lines([f"- {line}" for line in guide.placed], 900, more="/game map "
                             "private:true")]
    lines += ["**Left to place:**", *(f"- {line}" for line in guide.left)]
    if guide.where:
        lines += ["**Where:**", *(f"- {line}" for line in guide.where)]
    if guide.blocked:
        lines.append(f"`done` is refused until then: {guide.blocked}")
    elif guide.forfeit:
        lines.append("`done` now gives up: " + "; ".join(guide.forfeit)
                     + " — send `done` twice to confirm.")
    return clip("\n".join(lines))


def decision_dm(label: str, message: Message, buttons: bool = True) -> str:
    """A decision's DM to the owing player: the prompt, what they learned, where to answer
    (``buttons``: whether the DM carries the options as buttons or a menu)."""
    lines = [f"**{label}** — {message.prompt or 'your decision'}"]
    if message.lines:
        lines.append(clip_lines(message.lines, 1200))
    lines.append("Choose below, or use /decide." if buttons else
                 "Answer with /decide: it lists your options as you type.")
    return clip("\n".join(lines))
