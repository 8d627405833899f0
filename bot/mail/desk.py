"""The gateway's desk: a received mail in, the mail to send out — no network here.

:meth:`Desk.handle` reads one mail's commands and order lines, calls the game service,
and returns the reply (with the sender's view, map attached) plus any other mail the
commands cause (a seat secret for a newly seated player, a warning to a seat's owner).
:meth:`Desk.catch_up` mails every player and observer by email what happened since they
were last told — actions taken by mail, on Discord, at the console, or at a deadline —
each in their own audience's words. :meth:`Desk.tick` runs the service's deadlines and
mails reminders.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.views import View
from adjudicator.registry import available
from bot import deadlines
from bot.mail import gm as gm_commands
from bot.mail import play
from bot.mail.commands import META, Line, Script, parse_script
from bot.mail.config import MailConfig
from bot.mail.inbound import Inbound
from bot.mail.ledger import Ledger
from bot.mail.outbound import PRIVATE, Outgoing, tagged
from bot.mail.pictures import picture
from bot.mail.session import FOOTER, Refusal, Session
from bot.messages import Message
from bot.service import Actor, GameInfo, GameService, ServiceError

log = logging.getLogger("umpire.mail")

Command = Callable[[Session, Line], None]
COMMANDS: dict[str, Command] = {
    "help": play.cmd_help, "list": play.cmd_list, "games": play.cmd_list,
    "create": play.cmd_create, "new": play.cmd_create, "join": play.cmd_join,
    "observe": play.cmd_observe, "unobserve": play.cmd_observe, "status": play.cmd_status,
    "brief": play.cmd_brief, "placed": play.cmd_placed, "link": play.cmd_link,
    "map": play.cmd_map, "log": play.cmd_log, "legal": play.cmd_legal,
    "policies": play.cmd_policies, "undo": play.cmd_undo,
    "start": gm_commands.cmd_start, "deadline": gm_commands.cmd_deadline,
    "pause": gm_commands.cmd_pause, "resume": gm_commands.cmd_pause,
    "override": gm_commands.cmd_override, "rollback": gm_commands.cmd_rollback,
    "confirm": gm_commands.cmd_confirm, "seat": gm_commands.cmd_seat,
    "unseat": gm_commands.cmd_unseat, "secret": gm_commands.cmd_secret,
    "seed": gm_commands.cmd_seed,
}
#: Meta words that are also orders in every game's notation (given as typed).
AS_ORDERS = {"decide", "resign", "standing"}
assert set(COMMANDS) | AS_ORDERS == META

Picture = Callable[[View, "str | None"], "bytes | None"]


class Desk:
    def __init__(self, service: GameService, config: MailConfig,
                 ledger: Ledger | None = None, *, draw: Picture = picture,
                 clock: Callable[[], float] = time.time,
                 games: Mapping[str, str] | None = None) -> None:
        self.service = service
        #: Games a mail may create, by the name players write (never a module path).
        self.games = dict(games) if games is not None else {n: n for n in available()}
        self.config = config
        self.ledger = ledger or Ledger(service.store, clock)
        self.draw = draw
        self.clock = clock
        #: What the last mail handled asked (its commands), for the gateway's log line.
        self.verbs: list[str] = []
        self._pictures: dict[tuple[str, str, int, int], bytes | None] = {}
        #: Mails not answered, by why (automatic mail, floods, no valid command).
        self.unanswered: Counter[str] = Counter()

    # ---- one received mail -------------------------------------------------------------------

    def handle(self, inbound: Inbound) -> list[Outgoing]:
        """The mail to send for ``inbound`` (nothing for mail that must not be answered:
        automatic mail, a flood, a sender who keeps writing without a valid command);
        :attr:`verbs` holds what it asked, for the gateway's log line."""
        self.verbs = []
        if inbound.silent is not None:
            self.unanswered[inbound.silent.split(" (")[0].split(":")[0]] += 1
            log.info("not answering %s from %s: %s", inbound.key, inbound.sender,
                     inbound.silent)
            return []
        assert inbound.sender is not None
        verdict = self.ledger.count_mail(inbound.sender, self.config.limits.per_hour)
        if verdict == "drop":
            self.unanswered["over the hourly limit"] += 1
            log.warning("dropping mail %s from %s: over the hourly limit", inbound.key,
                        inbound.sender)
            return []
        if verdict == "warn":
            return [self._reply(inbound, None, [
                f"You sent more than {self.config.limits.per_hour} mails within an hour. "
                "Umpire reads no more mail from you until the hour is over; mail sent "
                "meanwhile is not read. Put several commands in one mail instead."])]
        if self.ledger.idle(inbound.sender) >= self.config.limits.idle_per_hour:
            self.unanswered["no valid command"] += 1
            log.debug("not answering %s from %s: no valid command again", inbound.key,
                      inbound.sender)
            return []
        if inbound.problem is not None:
            return [self._reply(inbound, None, [inbound.problem, *self._idle(inbound)])]
        script = parse_script(inbound.subject, inbound.text, self.config.limits.max_commands)
        self.verbs = verbs(script)
        session = Session(self, inbound, script, game_id=script.subject_game)
        if not script.lines:
            session.say("Umpire found no command in your mail. Write one per line; "
                        "'help' lists them.")
        self._run(session, script)
        if session.others:
            try:
                gm_commands.reset_disclosed(session)
            except Refusal as refusal:
                log.warning("mail %s: a disclosed seat secret could not be reset: %s",
                            inbound.key, refusal)
                session.say("", "Your password was also sent to others, and Umpire could not "
                            f"reset it ({refusal}): ask the GM for a new one ('secret SIDE').")
        if script.extra_passwords:
            session.say(f"{script.extra_passwords} more password line(s) were not read: a "
                        "mail carries one 'password ...' line, your seat's")
        if script.dropped:
            session.say(f"{script.dropped} more line(s) were not read: at most "
                        f"{self.config.limits.max_commands} per mail")
        if not session.understood:
            session.say(*self._idle(inbound))
        return [self._finish(session), *session.extra]

    def _idle(self, inbound: Inbound) -> list[str]:
        """Count a mail without a valid command; at the hour's bound, the last answer's
        words (later ones go unanswered until the hour is over, with this one log line)."""
        assert inbound.sender is not None
        limit = self.config.limits.idle_per_hour
        if self.ledger.count_idle(inbound.sender) < limit:
            return []
        log.warning("%s sent %d mails without a valid command within an hour: not answered "
                    "until the hour is over", inbound.sender, limit)
        return ["", f"Umpire found no command it could carry out in {limit} of your mails "
                "within an hour, so it will not answer mail from you until the hour is over."]

    def _run(self, session: Session, script: Script) -> None:
        batch: list[Line] = []
        for line in script.lines:
            if line.name in COMMANDS or line.name == "game" or (
                    line.name == "standing" and len(line.words) == 1):
                self._orders(session, batch)
                batch = []
                session.say(f"> {line.text}")
                self._command(session, line)
            else:
                batch.append(line)
        self._orders(session, batch)

    def _command(self, session: Session, line: Line) -> None:
        try:
            if line.name == "game":
                if len(line.words) != 2:
                    raise Refusal("game GAMEID")
                info = session.game(line.words[1])
                session.game_id = info.id
                session.say(f"  game {info.id}: {info.game}, {info.status}")
            elif line.name == "standing":
                play.cmd_policies(session, line)
            else:
                COMMANDS[line.name](session, line)
            session.understood = True
        except Refusal as refusal:
            session.say(f"  not done — {refusal}")
        except ServiceError as error:
            session.say(f"  not done — {error}")

    def _orders(self, session: Session, lines: list[Line]) -> None:
        """Order lines given together: one submission (it stops at an error or a decision)."""
        if not lines:
            return
        for line in lines:
            session.say(f"> {line.text}")
        try:
            info = session.game()
            side = session.require_side(info)
            texts = [play.decision_order(session, line) if line.name == "decide" else line.text
                     for line in lines]
            others = session.others
            secret = self._secret_line(session, info, lines, texts) if others else None
            if secret is not None:
                raise Refusal(
                    f"line {secret.number} is a secret order, and this mail was also "
                    f"sent to {', '.join(others)}. Secret orders are taken only from a mail "
                    "to Umpire alone; nothing in this mail's orders was applied. Send them "
                    "again privately (they were shown to those you copied: consider others).")
            key = f"mail:{session.inbound.key}:{lines[0].number}"
            result = self.service.submit(info.id, session.actor, "\n".join(texts), key, side)
        except Refusal as refusal:
            session.say(f"  not done — {refusal}")
            return
        session.result(result, lines)

    def _secret_line(self, session: Session, info: GameInfo, lines: list[Line],
                     texts: list[str]) -> Line | None:
        """The first line whose text is its side's secret now: a secret order, or any
        order while the side enters secrets (a face-down set-up, 25.7) — the game's one
        answer, :meth:`GameService.is_private`, as Discord asks it."""
        rules = session.rules(info)
        for line, text in zip(lines, texts, strict=True):
            if rules.is_secret_text(text) or session.call(self.service.is_private, info.id,
                                                          session.actor, text):
                return line
        return None

    # ---- the reply ------------------------------------------------------------------------------

    def _finish(self, session: Session) -> Outgoing:
        body = list(session.out)
        attachments: list[tuple[str, bytes]] = []
        advance: list[tuple[str, str, int]] = []
        for game_id, touched in session.touched.items():
            try:
                info = self.service.info(game_id, contacts=True)
            except ServiceError:
                continue
            audience = session.audience(info)
            follows = audience != PUBLIC or session.sender in self.ledger.observers(game_id)
            after = self.ledger.cursor(game_id, session.sender) if follows else None
            after = touched.before if after is None else min(after, touched.before)
            digest = self._digest(info, audience, after)
            if digest is not None:
                lines, view = digest
                body += ["", *lines]
                if follows:
                    advance.append((game_id, session.sender, info.head_seq))
                viewer = touched.map_viewer or (audience if touched.acted else None)
                if viewer is not None and view is not None:
                    if viewer != audience:
                        view = self.service.view(game_id, session.actor, viewer)
                    data = self._picture(info, viewer, view)
                    if data is not None:
                        attachments.append((f"{game_id}-{viewer}.png", data))
        main = session.game_id if session.game_id in session.touched else (
            next(iter(session.touched), None))
        reader = PRIVATE  # a mail handing out a seat's secret, or about no game
        if main is not None and not session.hands_secret:
            with contextlib.suppress(ServiceError):
                reader = session.audience(self.service.info(main, contacts=True))
        return Outgoing(
            to=session.sender, audience=reader, game_id=main, kind="reply",
            subject=tagged("Re: " + (session.inbound.subject or "your mail"), main),
            body="\n".join(body).strip() + FOOTER, in_reply_to=session.inbound.message_id,
            references=session.inbound.references[-10:], attachments=attachments,
            advance=advance)

    def _reply(self, inbound: Inbound, game_id: str | None, lines: list[str]) -> Outgoing:
        assert inbound.sender is not None
        return Outgoing(to=inbound.sender, audience=PRIVATE, game_id=game_id, kind="reply",
                        subject=tagged("Re: " + (inbound.subject or "your mail"), game_id),
                        body="\n".join(lines) + FOOTER, in_reply_to=inbound.message_id,
                        references=inbound.references[-10:])

    def _digest(self, info: GameInfo, audience: str, after: int
                ) -> tuple[list[str], View | None] | None:
        """What ``audience`` may read of the actions after ``after`` and of the game now."""
        if info.status == "setup":
            return ([f"Game {info.id} is being set up; seats: "
                     + ", ".join(s.side or "GM" for s in info.seats)], None)
        update = self.service.updates(info.id, after)
        message = update.messages.get(audience)
        if message is None:
            return None
        lines = [f"Game {info.id} — what {_reader(audience)} may read"
                 + (f" since action {after}:" if update.seqs else ":")]
        lines += [f"  {text}" for text in message.lines] or ["  (nothing new)"]
        lines += self._state_lines(info, message)
        return lines, message.view

    def _state_lines(self, info: GameInfo, message: Message) -> list[str]:
        lines: list[str] = []
        if message.result:
            lines.append(f"Game over: {message.result}")
        elif info.status == "paused":
            lines.append("The game is paused by the GM" + (
                f" ({info.pause_reason})" if info.pause_reason else "") + ".")
        elif message.to_act:
            lines.append(f"To act: {message.to_act}"
                         + play.deadline_text(info.deadline_at, self.clock()))
        if message.prompt:
            lines.append(message.prompt)
            for number, option in enumerate(message.options, start=1):
                lines.append(f"  {number}. {option}")
            if message.options:
                lines.append("Answer with 'decide N' (option N) or the option's text.")
        return lines

    def _picture(self, info: GameInfo, viewer: str, view: View) -> bytes | None:
        """The map of ``viewer``'s view now, drawn once per game position and audience
        (every observer, or a GM and a player holding the same view, share it)."""
        key = (info.id, viewer, info.head_seq, info.branch)
        if key not in self._pictures:
            if len(self._pictures) >= 64:
                self._pictures.clear()
            self._pictures[key] = self.draw(view, self._pack(info))
        return self._pictures[key]

    def _pack(self, info: GameInfo) -> str | None:
        rules = self.service.rules(info.id)
        return str(rules.pack) if rules.pack is not None else None

    # ---- telling everyone else --------------------------------------------------------------

    def recipients(self, info: GameInfo) -> dict[str, str]:
        """Who by email follows a game, and as which audience (GM, a side, public). A GM
        seat reads as the GM only while it has GM powers (the service's call: a GM who also
        plays is their side's player during play, issue 27.3)."""
        found: dict[str, str] = {}
        for seat in info.seats:
            if seat.email and seat.role == "player" and found.get(seat.email) != GM:
                found[seat.email] = str(seat.side)
        for seat in info.seats:
            if seat.email and seat.role == "gm" and found.get(seat.email) != GM and (
                    seat.email not in found
                    or self.service.has_gm_powers(info.id, Actor.mail(seat.email))):
                found[seat.email] = GM
        for address in self.ledger.observers(info.id):
            found.setdefault(address, PUBLIC)
        return found

    def catch_up(self, game_ids: Iterable[str] | None = None) -> list[Outgoing]:
        """A notice to each follower by email who has not been told the latest actions
        (:meth:`sent` records that they were, once the notice is sent)."""
        out: list[Outgoing] = []
        for game_id in sorted(set(game_ids) if game_ids is not None
                              else set(self.ledger.games_followed())):
            try:
                info = self.service.info(game_id, contacts=True)
            except ServiceError:
                continue
            for address, audience in self.recipients(info).items():
                after = self.ledger.cursor(game_id, address)
                if after is None:
                    self.ledger.set_cursor(game_id, address, info.head_seq)
                    continue
                if after >= info.head_seq:
                    continue
                notice = self._notice(info, address, audience, after)
                if notice is None:
                    self.ledger.set_cursor(game_id, address, info.head_seq)
                else:
                    notice.advance.append((game_id, address, info.head_seq))
                    out.append(notice)
        return out

    def sent(self, mail: Outgoing) -> None:
        """A mail went out: its recipient has been told what it says."""
        for game_id, address, seq in mail.advance:
            self.ledger.set_cursor(game_id, address, seq)

    def _notice(self, info: GameInfo, address: str, audience: str, after: int
                ) -> Outgoing | None:
        digest = self._digest(info, audience, after)
        if digest is None:
            return None
        lines, view = digest
        attachments: list[tuple[str, bytes]] = []
        if view is not None:
            data = self._picture(info, audience, view)
            if data is not None:
                attachments.append((f"{info.id}-{audience}.png", data))
        first = next((line.strip() for line in lines[1:] if line.startswith("  ")), "update")
        return Outgoing(to=address, audience=audience, game_id=info.id, kind="notice",
                        subject=tagged(f"{info.game}: {first[:80]}", info.id),
                        body="\n".join(lines) + FOOTER, attachments=attachments)

    def tick(self) -> list[Outgoing]:
        """Deadlines (the service plays defaults, mail goes out through catch_up) and
        reminders to players by email; then everyone is caught up."""
        out: list[Outgoing] = []
        for notice in self.service.tick():
            if notice.kind == "reminder":
                continue  # mailed below, from the gateway's own record
            out += self._announce(notice.game_id, notice.audience, notice.text)
        out += self._reminders()
        out += self.catch_up()
        return out

    def _announce(self, game_id: str, audience: str, text: str) -> list[Outgoing]:
        try:
            info = self.service.info(game_id, contacts=True)
        except ServiceError:
            return []
        return [Outgoing(to=address, audience=reader, game_id=game_id, kind="notice",
                         subject=tagged(f"{info.game}: {text[:80]}", game_id),
                         body=text + FOOTER)
                for address, reader in self.recipients(info).items()
                if audience == PUBLIC or reader in (audience, GM)]

    def _reminders(self) -> list[Outgoing]:
        out: list[Outgoing] = []
        now = self.clock()
        for row in self.service.store.games_with_deadlines():
            game_id = str(row["id"])
            start = float(row["deadline_start"] or 0.0)
            mine = {**row, "reminders_sent": json.dumps(self.ledger.reminders_sent(game_id,
                                                                                    start))}
            notices, sent = deadlines.due_reminders(mine, now)
            for fraction in sent:
                self.ledger.mark_reminder(game_id, start, fraction)
            for notice in notices:
                out += [mail for mail in self._announce(game_id, notice.audience, notice.text)
                        if mail.audience == notice.audience]
        return out


def verbs(script: Script) -> list[str]:
    """What a mail asked, for the operator's log: the names of its commands, and ``orders``
    for its order lines (an order's words may be a side's secret: never logged)."""
    named = [line.name if line.name in META else "orders" for line in script.lines]
    return list(dict.fromkeys(named))


def _reader(audience: str) -> str:
    return {PUBLIC: "everyone", GM: "the GM"}.get(audience, audience)

