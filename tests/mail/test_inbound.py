"""Reading received mail never fails: malformed MIME, HTML only, huge, attachments, odd
charsets, missing headers — and the commands in it, without quotes or signatures."""

from __future__ import annotations

from email.message import EmailMessage

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.mail.commands import own_text, parse_script, subject_game
from bot.mail.inbound import read_mail
from tests.hypothesis_profiles import examples
from tests.mail.support import UMPIRE, raw_mail

LIMIT = 100_000


def test_plain_mail() -> None:
    mail = read_mail(raw_mail("Ann <ANN@Player.test>", "move 24pz to 56\n",
                              subject="Re: [umpire g1] orders", message_id="<m1@x>"),
                     UMPIRE, LIMIT)
    assert mail.sender == "ann@player.test" and mail.key == "mid:ann@player.test:<m1@x>"
    assert mail.text.strip() == "move 24pz to 56" and mail.silent is None
    assert subject_game(mail.subject) == "g1"


def test_html_only_mail_is_read_without_its_quoted_part() -> None:
    html = ("<html><head><style>p{}</style></head><body><div>move 24pz&nbsp;to 56<br>pass"
            "</div><div class=\"gmail_quote\">On Mon wrote:<blockquote>attack 3</blockquote>"
            "</div></body></html>")
    mail = read_mail(raw_mail("ann@player.test", "", html=html), UMPIRE, LIMIT)
    assert mail.html and mail.text.splitlines() == ["move 24pz to 56", "pass"]


def test_attachments_are_counted_not_read() -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ann@player.test", UMPIRE, "x"
    message.set_content("pass\n")
    message.add_attachment(b"\x89PNG" + b"0" * 5000, maintype="image", subtype="png",
                           filename="board.png")
    mail = read_mail(message.as_bytes(), UMPIRE, LIMIT)
    assert mail.text.strip() == "pass" and mail.attachments == 1


def test_a_huge_mail_is_refused_unread() -> None:
    raw = raw_mail("ann@player.test", "pass\n" + "x" * 200_000)
    mail = read_mail(raw, UMPIRE, LIMIT)
    assert mail.problem is not None and "KB" in mail.problem and mail.text == ""
    headers_only = read_mail(raw.split(b"\n\n", 1)[0] + b"\n\n", UMPIRE, LIMIT, size=len(raw))
    assert headers_only.problem == mail.problem and headers_only.sender == "ann@player.test"


def test_non_utf8_and_unknown_charsets() -> None:
    latin = (b"From: ann@player.test\r\nTo: umpire@umpire.test\r\nSubject: =?iso-8859-1?q?"
             b"K=E4mpfe?=\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
             b"Content-Transfer-Encoding: 8bit\r\n\r\nmove Gef\xe4ngnis\r\n")
    mail = read_mail(latin, UMPIRE, LIMIT)
    assert mail.subject == "Kämpfe" and mail.text.strip() == "move Gefängnis"
    unknown = latin.replace(b"iso-8859-1\r\nContent-Transfer", b"x-klingon\r\nContent-Transfer")
    mail = read_mail(unknown, UMPIRE, LIMIT)
    assert mail.text.strip().startswith("move Gef") and mail.sender == "ann@player.test"
    koi8 = ("move Сталинград".encode("koi8-r"))
    raw = (b"From: ann@player.test\r\nContent-Type: text/plain; charset=koi8-r\r\n\r\n" + koi8)
    assert read_mail(raw, UMPIRE, LIMIT).text.strip() == "move Сталинград"


def test_malformed_mime_and_headers() -> None:
    broken = (b"From: \"unterminated <ann@player.test\r\nSubject: =?utf-8?b?!!!?=\r\n"
              b"Content-Type: multipart/mixed; boundary=\"nope\"\r\n\r\nno boundary here\r\n")
    mail = read_mail(broken, UMPIRE, LIMIT)
    assert mail.key.startswith("sha256:")  # no Message-ID: the bytes identify it
    garbage = read_mail(b"\x00\xff\xfe not a mail at all", UMPIRE, LIMIT)
    assert garbage.silent is not None  # no sender: never answered


@settings(max_examples=examples(150), deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_are_read_without_an_exception(data: bytes) -> None:
    mail = read_mail(b"From: ann@player.test\r\n" + data, UMPIRE, LIMIT)
    parse_script(mail.subject, mail.text, 200)


def test_bounces_and_reports_stay_silent() -> None:
    report = (b"From: postmaster@player.test\r\nContent-Type: multipart/report; "
              b"report-type=delivery-status; boundary=b\r\n\r\n--b\r\n\r\nfailed\r\n--b--\r\n")
    assert read_mail(report, UMPIRE, LIMIT).silent is not None
    empty_path = raw_mail("ann@player.test", "x", headers={"Return-Path": "<>"})
    assert "bounce" in (read_mail(empty_path, UMPIRE, LIMIT).silent or "")


def test_own_text_drops_quotes_signatures_and_client_footers() -> None:
    for tail in ("-- \nAnn", "Sent from my iPhone", "On Tue, 2 Jan 2026 at 10:00, Umpire <u@x>\n"
                 "wrote:\n> pass", "-----Original Message-----\nFrom: x", "From: Umpire\n"
                 "Sent: Monday\nTo: Ann", "________________________________\nFrom: x",
                 "Le lun. 1 janv. 2026, Umpire a écrit :\n> pass", "signoff\npass"):
        lines = [text for _, text in own_text(f"move 1\n> quoted\nmove 2\n{tail}\nmove 3")]
        assert lines == ["move 1", "move 2"], (tail, lines)


def test_password_lines_and_comments() -> None:
    script = parse_script("x", "password ab#cd-ef12\n# a comment\nmove 1 # why\n\npw second", 200)
    assert script.password == "ab#cd-ef12" and script.extra_passwords == 1  # one a mail
    assert [line.text for line in script.lines] == ["move 1"]
    many = parse_script("x", "\n".join(["pass"] * 10), 4)
    assert len(many.lines) == 4 and many.dropped == 6
