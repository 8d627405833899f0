"""The GM's commands by mail (each needs the GM seat's password): start, seat, unseat,
secret, deadline, pause, resume, override, rollback + confirm, seed.

A reason follows ``because`` (``override force-dice 6 6 because testing 8.3``); for pause,
resume and unseat everything after the command is the reason.
"""

from __future__ import annotations

import logging
import re

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import PUBLIC
from bot import commands as catalogue
from bot import durations, seat_secrets
from bot.mail.commands import Line
from bot.mail.outbound import PRIVATE, Outgoing, tagged
from bot.mail.session import FOOTER, Refusal, Session, number
from bot.overrides import override_from_words
from bot.service import Actor
from bot.web.settings import link_url

log = logging.getLogger("umpire.mail")


def parse_duration(text: str) -> float:
    """``48h``, ``2d``, ``90m``, ``36`` (hours) -> seconds (:func:`bot.durations.parse`)."""
    try:
        return durations.parse(text)
    except durations.DurationError as error:
        raise Refusal(str(error)) from error


def because(text: str) -> tuple[str, str]:
    """(the words before ``because``, the reason after it)."""
    parts = re.split(r"(?:^|\s)because\s", text, maxsplit=1, flags=re.IGNORECASE)
    return parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")


def cmd_start(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    seconds = parse_duration(line.rest) if line.rest else None
    info = s.call(s.service.start, info.id, gm, deadline_seconds=seconds)
    s.touch(info)
    s.touched[info.id].acted = True
    s.say(f"  game {info.id} started; to act: {info.to_act}")
    # every seat is told, not only the GM who started it (issue 22)
    s.notices.append((info.id, PUBLIC, catalogue.start_notice(info, s.rules(info).title)))


def cmd_deadline(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    if not line.rest:
        raise Refusal("deadline DURATION (e.g. 48h) or deadline off")
    seconds = None if line.rest.lower() == "off" else parse_duration(line.rest)
    s.call(s.service.set_deadline, info.id, gm, seconds)
    s.say("  no deadline from now on" if seconds is None
          else f"  deadline: {line.rest} per turn or decision")


def cmd_pause(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    reason = because(line.rest)[1] or line.rest
    method = s.service.pause if line.name == "pause" else s.service.resume
    result = method(info.id, gm, reason, _key(s, line))
    s.result(result, [line])


def cmd_override(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    words, reason = because(line.rest)
    if not reason:
        raise Refusal("say why: override OP ARGS because REASON")
    op, _, args = words.partition(" ")
    try:
        typed = override_from_words(op.lower(), args)
    except RuleError as error:
        raise Refusal(str(error)) from error
    result = s.service.override(info.id, gm, typed, reason, _key(s, line))
    s.result(result, [line])


def cmd_rollback(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    words, reason = because(line.rest)
    usage = "rollback N because REASON (N: the action to return to, 0: the start)"
    if not words or not reason:
        raise Refusal(usage)
    to_seq = number(words, usage)
    preview = s.call(s.service.rollback_preview, info.id, gm, to_seq)
    code = s.desk.ledger.hold_rollback(info.id, s.sender, to_seq, reason, info.head_seq)
    s.say(f"  Preview — back to action {to_seq}; reverted ({len(preview.reverted)}):",
          *(f"    {text}" for text in preview.reverted[:60]),
          "  changes:", *(f"    {text}" for text in preview.changes[:40]),
          f"  dice rolls discarded: {preview.rolls_discarded}. Reason: {reason}",
          f"  To do it, send: confirm {code}   (valid while nothing else happens in the game)")


def cmd_confirm(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    if len(line.words) != 2:
        raise Refusal("confirm CODE (the code of a rollback preview)")
    held = s.desk.ledger.take_rollback(line.words[1], info.id, s.sender)
    if held is None:
        raise Refusal("no rollback waits for that code (it was used, or is older than a day)")
    if held.head_seq != info.head_seq:
        raise Refusal(f"the game moved on since the preview (action {held.head_seq} then, "
                      f"{info.head_seq} now): preview the rollback again")
    result = s.service.rollback(info.id, gm, held.to_seq, held.reason)
    s.result(result, [line])


def cmd_seat(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    words, reason = because(line.rest)
    parts = words.split()
    if len(parts) != 2 or "@" not in parts[1]:
        raise Refusal("seat SIDE ADDRESS [because REASON]")
    side, address = parts[0].lower(), parts[1].strip("<>").lower()
    rules = s.rules(info)
    if side not in rules.sides:
        raise Refusal(f"unknown side {side!r}; sides are {', '.join(rules.sides)}")
    if any(seat.side == side and seat.role == "player" for seat in info.seats):
        s.call(s.service.unseat, info.id, gm, side, reason or "replaced by the GM")
    secret = seat_secrets.new_secret()
    info = s.call(s.service.seat, info.id, gm, side, Actor.mail(address), secret=secret)
    s.desk.ledger.set_cursor(info.id, address, info.head_seq)
    page = None
    if s.desk.config.web_url:  # the seat's web page, given with its secret (docs/web.md)
        link = s.call(s.service.reissue_link, info.id, gm, side)
        page = link_url(s.desk.config.web_url, link.path)
    s.extra.append(_secret_mail(info.id, address, side, secret, rules.title, seated=True,
                                page=page))
    s.say(f"  {address} now plays {side}; their seat secret"
          + (" and web page link were" if page else " was") + " mailed to them alone")


def cmd_unseat(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    words, reason = because(line.rest)
    if not words or not reason:
        raise Refusal("unseat SIDE because REASON")
    s.call(s.service.unseat, info.id, gm, words.lower(), reason)
    s.say(f"  {words.lower()} has no player now; 'seat {words.lower()} ADDRESS' seats one")


def cmd_secret(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    parts = line.words[1:]
    if not 1 <= len(parts) <= 2:
        raise Refusal("secret SIDE|gm [NEW-SECRET] (without one, a random secret)")
    target = parts[0].lower()
    secret = parts[1] if len(parts) == 2 else seat_secrets.new_secret()
    if target == "gm":
        seats = s.call(s.service.set_seat_secret, info.id, gm, secret, holder=gm)
    else:
        seats = s.call(s.service.set_seat_secret, info.id, gm, secret, side=target)
    title = s.rules(info).title
    told = []
    for seat in seats:
        if seat.email:
            s.extra.append(_secret_mail(info.id, seat.email, seat.side, secret, title,
                                        seated=False))
            told.append(seat.email)
    s.say(f"  the {target} seat has a new secret"
          + (f", mailed to {', '.join(told)} alone" if told else
             " (its holder plays elsewhere: tell them yourself)"))


def cmd_seed(s: Session, line: Line) -> None:
    info = s.game()
    gm = s.require_gm(info)
    seed = s.call(s.service.reveal_seed, info.id, gm)
    s.say(f"  dice seed of {info.id}: {seed} — check every die against the commitment")


def reset_disclosed(s: Session) -> None:
    """The mail gave a seat's password and was copied to others: each seat it unlocked
    gets a new secret at once, mailed to its holder alone (the old one was shown to those
    copied), and the reply says so. The reset is made in the GM's name, as the GM's
    ``secret SIDE`` command would be."""
    for game_id, seats in s.unlocked().items():
        info = s.info(game_id)
        gm_seat = next((seat for seat in info.seats if seat.role == "gm"), None)
        if gm_seat is None:
            continue
        gm = Actor(discord_id=gm_seat.discord_id, email=gm_seat.email)
        secret = seat_secrets.new_secret()
        title = s.rules(info).title
        changed = []
        for side in dict.fromkeys(seat.side for seat in seats if seat.role == "player"):
            changed += s.call(s.service.set_seat_secret, game_id, gm, secret, side=side)
        if any(seat.role == "gm" for seat in seats):
            changed += s.call(s.service.set_seat_secret, game_id, gm, secret, holder=s.actor)
        for address in dict.fromkeys(seat.email for seat in changed if seat.email):
            side = next(seat.side for seat in changed if seat.email == address)
            why = (f"Your seat's password was in a mail from {s.sender} that was also sent "
                   f"to {', '.join(s.others)}, so they know it: your seat ({side or 'GM'}) in "
                   f"game {game_id} has a new secret, and the old one no longer works.")
            s.extra.append(_secret_mail(game_id, address, side, secret, title, seated=False,
                                        first=why))
        log.warning("game %s: a seat password was sent to %s; the seat's secret was reset",
                    game_id, ", ".join(s.others))
        s.say("", f"Your password was also sent to {', '.join(s.others)}: your seat's "
              f"secret in game {game_id} was reset, and the new one mailed to you alone. "
              "Never copy anyone on a mail with your password.")


def _secret_mail(game_id: str, address: str, side: str | None, secret: str, title: str,
                 *, seated: bool, first: str | None = None, page: str | None = None
                 ) -> Outgoing:
    what = f"the {side} seat" if side else "the GM seat"
    first = first or (
        f"The GM seated you for {side} in game {game_id} ({title})." if seated
        else f"The GM set a new secret for your seat ({side or 'GM'}) in game {game_id}.")
    body = (f"{first}\n\nYour seat secret: {secret}\n\nPut the line\n\n    password {secret}\n\n"
            f"in every mail for this game; a mail without it cannot act for {what}. Keep it "
            "to yourself.") + (
                f"\n\nYour web page for this game (secret too: whoever has it plays {side}):"
                f"\n\n    {page}" if page else "") + FOOTER
    return Outgoing(to=address, audience=PRIVATE, game_id=game_id, kind="notice",
                    subject=tagged(f"Your seat in {title}", game_id), body=body)


def _key(s: Session, line: Line) -> str:
    return f"mail:{s.inbound.key}:{line.number}"

