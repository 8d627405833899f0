"""Security round 3, the mail gateway (issue 27): a mail that stalls the gateway, numbers
in other scripts, lone surrogates, endless deadlines, auto-replies, header and MIME bombs,
and the secrecy gaps of mail copied to others."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import seat_secrets
from bot.mail.desk import Desk
from tests.mail.support import desk, inbound
from tests.mail.test_desk import BLUE, GM, RED, game_with_players, handle, one


@pytest.fixture
def office(tmp_path: Path) -> Desk:
    return desk(tmp_path / "umpire.db")


@pytest.fixture
def hash_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every scrypt check of a seat secret made meanwhile (the cache of known secrets is
    emptied first, so each distinct secret costs one check)."""
    checks: list[str] = []
    real = seat_secrets._check

    def counted(secret: str, stored: str) -> bool:
        checks.append(secret)
        return real(secret, stored)

    monkeypatch.setattr(seat_secrets, "_check", counted)
    seat_secrets._CHECKED.clear()
    yield checks
    seat_secrets._CHECKED.clear()


# ---- 27.1: a mail of password lines ------------------------------------------------------


def test_a_mail_of_password_lines_costs_one_hash_check_27_1(
        office: Desk, hash_checks: list[str]) -> None:
    """27.1: at most one password line per mail, checked against the sender's own seat
    only; the other lines count against the mail's bound and are refused, not hashed."""
    game_id, secrets = game_with_players(office)
    lines = [f"password {seat_secrets.new_secret()}" for _ in range(90)]
    body = "\n".join([f"password {secrets[RED]}", *lines, "trap 1"])
    assert len(body) >= 2048
    hash_checks.clear()
    reply = one(handle(office, inbound(RED, body, subject=f"[umpire {game_id}]")))
    assert len(hash_checks) <= 1, len(hash_checks)  # red's own seat, once
    assert "applied: trap 1" in reply.body
    assert "90 more password line(s) were not read" in reply.body


def test_a_strangers_password_lines_are_not_checked_against_the_seats_27_1(
        office: Desk, hash_checks: list[str]) -> None:
    """27.1: a password from an address that holds no seat costs no hash check at all."""
    game_id, secrets = game_with_players(office)
    hash_checks.clear()
    body = "\n".join([f"password {secrets[RED]}", "trap 1"])
    reply = one(handle(office, inbound("mallory@player.test", body,
                                      subject=f"[umpire {game_id}]")))
    assert hash_checks == []
    assert "holds no seat" in reply.body
    assert office.service.info(game_id).head_seq == 0


def test_password_lines_count_against_max_commands_27_1(tmp_path: Path) -> None:
    """27.1: a mail's work is bounded: password lines count with the commands."""
    from tests.mail.support import config

    office = desk(tmp_path / "umpire.db")
    office.config = config(limits={"max_commands": 3})
    reply = one(handle(office, inbound(RED, "password aaaa-bbbb-cccc\nhelp\nlist\nstatus")))
    assert "1 more line(s) were not read: at most 3 per mail" in reply.body


def test_a_mail_of_many_lines_is_read_only_up_to_its_bound_27_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """27.1: past ``max_commands`` lines the rest of a mail is only counted, and quotes are
    skipped before any pattern is tried: a 1 MB mail costs a bounded number of matches."""
    from bot.mail import commands

    tried: list[str] = []

    class Counting:
        def __init__(self, pattern: object) -> None:
            self.pattern = pattern

        def match(self, text: str) -> object:
            tried.append(text)
            return self.pattern.match(text)  # type: ignore[attr-defined]

    monkeypatch.setattr(commands, "ATTRIBUTION", Counting(commands.ATTRIBUTION))
    script = commands.parse_script("x", "status\n" * 140_000, 200)
    assert len(script.lines) == 200 and script.dropped == 139_800
    assert len(tried) <= 2 * 201
    tried.clear()
    quoted = commands.parse_script("x", "> status\n" * 110_000 + "help", 200)
    assert [line.text for line in quoted.lines] == ["help"] and len(tried) <= 2


# ---- 27.7: numbers in other scripts --------------------------------------------------------


@pytest.mark.parametrize("who,line", [
    (None, "log ¹"), (RED, "log ²⁰"), (RED, "log ٣"), (RED, "decide ²"),
    (GM, "rollback ¹ because x"), (GM, "override force-dice ¹ because x"),
    (RED, "log 99999999999999999999999999"),
])
def test_non_ascii_digits_are_refused_with_a_clear_message_27_7(
        office: Desk, who: str | None, line: str) -> None:
    """27.7: every number argument of a mail command goes through the order notation's
    one number parser: digits 0-9 only, a clear refusal otherwise, nothing done."""
    game_id, secrets = game_with_players(office)
    sender = who or "stranger@player.test"
    body = (f"password {secrets[who]}\n" if who else "") + line
    reply = one(handle(office, inbound(sender, body, subject=f"[umpire {game_id}]")))
    assert "not done" in reply.body or "not applied" in reply.body, reply.body
    assert "is not a number: write it with the digits 0-9" in reply.body
    assert office.service.info(game_id).head_seq == 0
    assert BLUE not in reply.body


# ---- 27.8: endless deadlines ------------------------------------------------------------


@pytest.mark.parametrize("line,said", [
    ("deadline " + "9" * 400 + "d", "cannot read"), ("deadline 61d", "at most 60 days"),
    ("deadline 1e400h", "cannot read"), ("deadline ²h", "cannot read"),
    ("deadline 0h", "longer than nothing"),
])
def test_endless_or_absurd_deadlines_are_refused_27_8(office: Desk, line: str, said: str) -> None:
    """27.8: a deadline period is at most 60 days (bot.durations.MAX_SECONDS)."""
    game_id, secrets = game_with_players(office)
    reply = one(handle(office, inbound(GM, f"password {secrets[GM]}\n{line}",
                                      subject=f"[umpire {game_id}]")))
    assert "not done — " in reply.body and said in reply.body, reply.body
    assert office.service.info(game_id).deadline_at is None


def test_the_service_refuses_an_endless_period_from_any_frontend_27_8(office: Desk) -> None:
    """27.8: the bound holds in the service too (Discord passes hours as a number)."""
    from bot.durations import DurationError
    from bot.service import Actor

    game_id, _ = game_with_players(office)
    for seconds in (float("inf"), 61 * 86400.0, float("nan"), -1.0):
        with pytest.raises(DurationError):
            office.service.set_deadline(game_id, Actor.mail(GM), seconds)
    assert office.service.info(game_id).deadline_at is None
    office.service.set_deadline(game_id, Actor.mail(GM), 60 * 86400.0)  # the longest


def test_an_endless_deadline_stored_before_the_bound_breaks_nothing_27_8(office: Desk) -> None:
    """27.8: a period or deadline stored endless before the bound is read as the longest:
    later mail about the game is answered and the deadline tick runs."""
    game_id, secrets = game_with_players(office)
    office.service.store.update_game(game_id, {
        "deadline_seconds": float("inf"), "deadline_side": "red", "deadline_start": 0.0,
        "deadline_at": float("inf"), "reminder_fractions": "[0.5]", "reminders_sent": "[]"})
    reply = one(handle(office, inbound(RED, f"password {secrets[RED]}\nstatus\ntrap 1",
                                      subject=f"[umpire {game_id}]")))
    assert "applied: trap 1" in reply.body and "deadline in 1440 h 00 min" in reply.body
    office.tick()
    status = one(handle(office, inbound(BLUE, f"password {secrets[BLUE]}\nstatus",
                                       subject=f"[umpire {game_id}]")))
    assert "to act" in status.body.lower()


# ---- 27.2: lone surrogates (charset=utf-7) ----------------------------------------------

UTF7 = (b"From: ann@player.test\r\nTo: umpire@umpire.test\r\n"
        b"Subject: =?utf-7?q?orders_+2AA-?=\r\nMessage-ID: <utf7@player.test>\r\n"
        b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-7\r\n\r\nhelp +2AA-\r\n")


def test_a_utf7_mail_with_a_lone_surrogate_is_refused_clearly_and_once_27_2(
        tmp_path: Path) -> None:
    """27.2: the text is cleaned once where the mail is decoded; the sender is told why
    nothing was read; the mail is handled once, never retried forever."""
    from bot.mail.gateway import Gateway
    from bot.mail.inbound import read_mail
    from tests.mail.support import UMPIRE, config
    from tests.mail.test_gateway import MemoryBox, MemorySender

    mail = read_mail(UTF7, UMPIRE, 100_000)
    assert mail.problem is not None and "not text" in mail.problem
    assert not any("\ud800" <= c <= "\udfff" for c in mail.subject + mail.text)
    office = desk(tmp_path / "umpire.db")
    box, sender = MemoryBox(UTF7), MemorySender()
    gateway = Gateway(office, config(), sender, box)
    assert gateway.poll() == 1 and box.waiting() == []
    ((to, reply),) = sender.sent
    assert to == "ann@player.test" and "U+D800-DFFF" in reply.get_content()
    reply.as_bytes()  # it can be sent
    assert gateway.failures == {}


def test_a_reply_that_cannot_be_encoded_counts_as_a_failure_and_is_answered_27_2(
        tmp_path: Path) -> None:
    """27.2: a reply that cannot be written is a failure the counter counts: the mail is
    tried MAX_FAILURES times, then set aside, and its sender is told."""
    from bot.mail.gateway import MAX_FAILURES, Gateway
    from bot.mail.inbound import Inbound
    from bot.mail.outbound import Outgoing
    from tests.mail.support import config, raw_mail
    from tests.mail.test_gateway import MemoryBox, MemorySender

    class Garbling(Desk):
        def handle(self, inbound: Inbound) -> list[Outgoing]:
            return [Outgoing(to=str(inbound.sender), subject="x", body="\ud800",
                             audience="private")]

    base = desk(tmp_path / "umpire.db")
    office = Garbling(base.service, config(), games=base.games, draw=base.draw)
    box, sender = MemoryBox(raw_mail("ann@player.test", "help")), MemorySender()
    gateway = Gateway(office, config(), sender, box)
    for _ in range(MAX_FAILURES):
        gateway.poll()
    assert box.waiting() == [] and sum(gateway.failures.values()) == MAX_FAILURES
    ((to, told),) = sender.sent
    assert to == "ann@player.test" and "could not answer your mail" in told.get_content()


# ---- 27.11: secrecy of mail copied to others ---------------------------------------------


def test_face_down_placements_are_refused_from_a_copied_mail_25_7_27_11(tmp_path: Path) -> None:
    """27.11, 25.7: in a face-down set-up (Gauntlet) every placement is the German side's
    secret: a mail copied to anyone else is refused, like hide and mine orders."""
    from tests.mail.support import secret_in
    from tests.mail.test_commands_brief_placed import started_gauntlet

    office, game_id, secrets = started_gauntlet(tmp_path / "umpire.db")
    from bot.service import Actor

    place = next(o for o in office.service.legal_orders(game_id, Actor.mail(RED))
                 if o.startswith("place"))
    assert not office.service.rules(game_id).is_secret_text(place)  # private by the phase
    copied, reset = handle(office, inbound(RED, f"password {secrets[RED]}\n{place}",
                                          subject=f"[umpire {game_id}]", cc=BLUE))
    assert "line 2 is a secret order" in copied.body
    assert office.service.info(game_id).head_seq == 0
    alone = handle(office, inbound(RED, f"password {secret_in(reset)}\n{place}",
                                  subject=f"[umpire {game_id}]"))
    assert f"applied: {place}" in alone[0].body


def test_a_password_copied_to_others_resets_the_seat_and_warns_its_holder_27_11(
        office: Desk) -> None:
    """27.11: the mail is read (it is the seat's own), then the seat gets a new secret,
    mailed to its holder alone; the old one no longer unlocks it."""
    from bot.service import Actor
    from tests.mail.support import secret_in

    game_id, secrets = game_with_players(office)
    out = handle(office, inbound(RED, f"password {secrets[RED]}\nstatus",
                                subject=f"[umpire {game_id}]",
                                cc="friend@player.test, {side}{0}@player.test"))
    reply, warning = out
    assert reply.to == RED and "secret in game" in reply.body and "was reset" in reply.body
    assert warning.to == RED and warning.audience == "private"
    assert "friend@player.test" in warning.body and "{side}{0}@player.test" in warning.body
    new = secret_in(warning)
    assert new != secrets[RED] and new not in reply.body
    assert not office.service.unlocked_seats(game_id, Actor.mail(RED), secrets[RED])
    assert office.service.unlocked_seats(game_id, Actor.mail(RED), new)
    # Only red's seat changed.
    assert office.service.unlocked_seats(game_id, Actor.mail(BLUE), secrets[BLUE])
    assert office.service.unlocked_seats(game_id, Actor.mail(GM), secrets[GM])


def test_a_strangers_mail_with_the_same_message_id_drops_nothing_27_11(office: Desk) -> None:
    """27.11: de-duplication is keyed by sender and Message-ID: a stranger who sends a
    mail with a player's (guessed or seen) Message-ID first cannot make it dropped."""
    from bot.mail.gateway import Gateway
    from tests.mail.support import config, raw_mail
    from tests.mail.test_gateway import MemoryBox, MemorySender

    game_id, secrets = game_with_players(office)
    same = "<guessed@player.test>"
    box = MemoryBox(raw_mail("mallory@player.test", "help", message_id=same),
                    raw_mail(RED, f"password {secrets[RED]}\ntrap 1",
                             f"[umpire {game_id}]", message_id=same))
    sender = MemorySender()
    assert Gateway(office, config(), sender, box).poll() == 2
    assert [to for to, _ in sender.sent][:2] == ["mallory@player.test", RED]
    body = sender.sent[1][1].get_body()
    assert body is not None and "applied: trap 1" in body.get_content()
    assert office.service.info(game_id).head_seq == 1


# ---- 27.10: header and MIME bombs ----------------------------------------------------------


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every input the email parser was given meanwhile."""
    import email as email_package

    sizes: list[int] = []
    real = email_package.message_from_bytes

    def measured(data: bytes, *args: object, **kwargs: object) -> object:
        sizes.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(email_package, "message_from_bytes", measured)
    return sizes


def test_a_huge_to_header_is_refused_without_parsing_it_27_10(
        office: Desk, parsed: list[int]) -> None:
    """27.10: a 0.43 MB To: header never reaches the (superlinear) header parser; the
    sender is answered."""
    from bot.mail.inbound import MAX_HEADER_BYTES, read_mail

    to = ",\r\n ".join(f"user{i}@example.org" for i in range(20_000))
    raw = (f"From: {RED}\r\nTo: {to}\r\nSubject: orders\r\nMessage-ID: <to@player.test>\r\n"
           "\r\nhelp\r\n").encode()
    assert len(raw) > 430_000

    mail = read_mail(raw, "umpire@umpire.test", 1_000_000)
    assert parsed and max(parsed) <= MAX_HEADER_BYTES + 4
    assert mail.sender == RED and mail.recipients == []
    reply = one(handle(office, mail))
    assert reply.to == RED and "Umpire reads headers of up to 64 KB" in reply.body


def test_a_long_header_is_cut_not_decoded_27_10() -> None:
    """27.10: a header over MAX_HEADER_LINE (4 KB) is cut and never decoded (decoding
    thousands of encoded words is slow), whatever the whole header's size."""
    from bot.mail.inbound import read_mail

    subject = "=?utf-8?q?a?= " * 4000
    raw = (f"From: {RED}\r\nTo: umpire@umpire.test\r\nSubject: {subject}\r\n"
           "Message-ID: <long@player.test>\r\n\r\nhelp\r\n").encode()
    mail = read_mail(raw, "umpire@umpire.test", 1_000_000)
    assert mail.problem is None and mail.text.strip() == "help"
    assert mail.subject.startswith("=?utf-8?q?a?=") and len(mail.subject) <= 300


def _nested(depth: int) -> bytes:
    head = (f"From: {RED}\r\nTo: umpire@umpire.test\r\nSubject: x\r\n"
            "Message-ID: <deep@player.test>\r\nMIME-Version: 1.0\r\n").encode()
    body = b"help\r\n"
    for level in range(depth):
        body = (f"Content-Type: multipart/mixed; boundary=b{level}\r\n\r\n--b{level}\r\n"
                .encode() + body + f"\r\n--b{level}--\r\n".encode())
    return head + body


def _parts(count: int) -> bytes:
    head = (f"From: {RED}\r\nTo: umpire@umpire.test\r\nSubject: x\r\n"
            "Message-ID: <many@player.test>\r\nMIME-Version: 1.0\r\n"
            "Content-Type: multipart/mixed; boundary=b\r\n\r\n").encode()
    part = b"--b\r\nContent-Type: text/plain\r\n\r\nhelp\r\n"
    return head + part * count + b"--b--\r\n"


@pytest.mark.parametrize("raw,said", [
    (_nested(2_000), "2000 parts"), (_parts(20_000), "20001 parts"),
    (_nested(20), "nests 20 multipart levels"),
])
def test_mime_bombs_are_refused_unparsed_and_answered_27_10(
        office: Desk, parsed: list[int], raw: bytes, said: str) -> None:
    """27.10: 20,000 parts or 2,000 levels of nesting: refused from a count of the raw
    bytes (the body is never parsed) and the sender answered."""
    from bot.mail.inbound import read_mail

    mail = read_mail(raw, "umpire@umpire.test", 10_000_000)
    assert max(parsed) < 1000  # the header alone was parsed
    reply = one(handle(office, mail))
    assert reply.to == RED and said in reply.body


def test_a_few_parts_and_levels_are_read_as_usual_27_10(office: Desk) -> None:
    """27.10: the bounds leave ordinary mail alone (text and HTML, an attachment)."""
    from bot.mail.inbound import read_mail

    for raw in (_nested(4), _parts(3)):
        mail = read_mail(raw, "umpire@umpire.test", 1_000_000)
        assert mail.problem is None and "help" in mail.text


# ---- 27.9: auto-replies, bounces, and senders without a command ---------------------------


@pytest.mark.parametrize("sender,subject,headers", [
    (RED, "orders", {"Auto-Submitted": "auto-replied"}),
    (RED, "orders", {"X-Auto-Response-Suppress": "All"}),
    (RED, "orders", {"X-Autogenerated": "Reply"}),
    (RED, "orders", {"X-Autoreply": "yes"}),
    (RED, "orders", {"X-MS-Exchange-Generated-Message-Source": "Mailbox Rules Agent"}),
    (RED, "orders", {"X-MS-Exchange-Inbox-Rules-Loop": RED}),
    (RED, "orders", {"Precedence": "junk"}),
    (RED, "orders", {"List-Id": "<club.lists.example.org>"}),
    (RED, "orders", {"Return-Path": "<>"}),
    ("no_reply@player.test", "orders", {}),
    ("noreply+tag@player.test", "orders", {}),
    ("bounces+red=player.test@lists.example.org", "orders", {}),
    ("MAILER-DAEMON@player.test", "orders", {}),
    ("postmaster@player.test", "orders", {}),
    (RED, "Automatic reply: [umpire abc] orders", {}),
    (RED, "Out of Office: orders", {}),
    (RED, "Undeliverable: orders", {}),
])
def test_auto_replies_and_bounces_are_never_answered_rfc_3834_27_9(
        office: Desk, sender: str, subject: str, headers: dict[str, str]) -> None:
    """27.9: RFC 3834 and the usual marks of automatic mail and bounces: never answered,
    logged and counted."""
    assert handle(office, inbound(sender, "help", subject, headers=headers)) == []
    assert sum(office.unanswered.values()) == 1


def test_delivery_reports_are_never_answered_27_9(office: Desk) -> None:
    """27.9: a DSN (multipart/report; report-type=delivery-status) is a bounce."""
    raw = (f"From: {RED}\r\nTo: umpire@umpire.test\r\nSubject: x\r\nMessage-ID: <dsn@x>\r\n"
           "MIME-Version: 1.0\r\nContent-Type: multipart/report; "
           "report-type=delivery-status; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain"
           "\r\n\r\nhelp\r\n--b--\r\n").encode()
    from bot.mail.inbound import read_mail

    assert handle(office, read_mail(raw, "umpire@umpire.test", 100_000)) == []


def test_a_human_mail_is_still_answered_27_9(office: Desk) -> None:
    """27.9: ``Auto-Submitted: no`` and ordinary subjects are a person's mail."""
    for subject, headers in (("orders", {"Auto-Submitted": "no"}),
                             ("Re: [umpire x] out of patience", {})):
        assert len(handle(office, inbound(RED, "help", subject, headers=headers))) == 1


def test_a_sender_without_a_valid_command_is_answered_then_left_alone_27_9(
        office: Desk, caplog: pytest.LogCaptureFixture) -> None:
    """27.9: a responder that marks itself in no way gets idle_per_hour answers an hour,
    the last saying so, then silence with one log line; an hour later, answers again."""
    limit = office.config.limits.idle_per_hour
    replies = [handle(office, inbound(RED, "I am away until Monday.\nRegards"))
               for _ in range(limit + 10)]
    assert [len(r) for r in replies] == [1] * limit + [0] * 10
    assert "will not answer mail from you until the hour is over" in replies[limit - 1][0].body
    assert "will not answer" not in replies[0][0].body
    assert [r.message for r in caplog.records if "without a valid command" in r.message] \
        == [f"{RED} sent {limit} mails without a valid command within an hour: not answered "
            "until the hour is over"]
    assert office.unanswered["no valid command"] == 10
    assert len(handle(office, inbound(BLUE, "help"))) == 1  # others are answered
    office.ledger.clock = lambda: 1e12  # an hour later (and more)
    assert len(handle(office, inbound(RED, "help"))) == 1


def test_players_with_commands_are_never_silenced_27_9(office: Desk) -> None:
    """27.9: only mail without a valid command counts towards the silence."""
    game_id, secrets = game_with_players(office)
    for _ in range(office.config.limits.idle_per_hour + 3):
        reply = one(handle(office, inbound(RED, f"password {secrets[RED]}\nlegal",
                                          subject=f"[umpire {game_id}]")))
        assert "will not answer" not in reply.body
