"""Several gateways on one mailbox and one database (as several ``umpire mail``
processes): each mail is handled once — one reply, one game made — whichever gateway
fetched it, on SQLite and on PostgreSQL; one gateway sends the notices."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from email.message import EmailMessage

from bot.mail.gateway import ELSEWHERE, Gateway
from bot.mail.inbound import read_mail
from tests.mail.support import config, desk, raw_mail


class SharedBox:
    """One mailbox read by several gateways at once (a mail stays until one moves it)."""

    def __init__(self, *mails: bytes) -> None:
        self.mails = {str(uid): raw for uid, raw in enumerate(mails, start=1)}
        self.moved: Counter[str] = Counter()
        self.lock = threading.Lock()

    def waiting(self) -> list[str]:
        with self.lock:
            return sorted((u for u in self.mails if not self.moved[u]), key=int)

    def fetch(self, uids: Sequence[str], max_bytes: int) -> dict[str, tuple[bytes, int]]:
        with self.lock:  # a mail moved by another gateway meanwhile is not there
            return {uid: (self.mails[uid], len(self.mails[uid])) for uid in uids
                    if not self.moved[uid]}

    def done(self, uids: Sequence[str]) -> None:
        with self.lock:
            for uid in uids:
                self.moved[uid] += 1

    def wait(self, seconds: float) -> None:
        pass


class Sender:
    def __init__(self) -> None:
        self.sent: list[tuple[str, EmailMessage]] = []
        self.lock = threading.Lock()

    def send(self, message: EmailMessage, to: str) -> None:
        with self.lock:
            self.sent.append((to, message))


def test_each_mail_is_handled_by_one_gateway(db_url: str) -> None:
    creators = [f"gm{n}@player.test" for n in range(10)]
    askers = [f"who{n}@player.test" for n in range(6)]
    box = SharedBox(*(raw_mail(a, "create duel") for a in creators),
                    *(raw_mail(a, "help") for a in askers))
    gateways = [Gateway(desk(db_url), config(), Sender(), box) for _ in range(3)]
    start = threading.Barrier(len(gateways))

    def run(gateway: Gateway) -> None:
        start.wait()
        for _ in range(4):
            gateway.poll()

    threads = [threading.Thread(target=run, args=(g,)) for g in gateways]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    replies = Counter(to for g in gateways for to, _ in g.outbox.sent)  # type: ignore[attr-defined]
    assert replies == Counter(creators + askers)  # one reply to each mail
    store = gateways[0].desk.service.store
    assert store.query("SELECT count(*) AS n FROM games")[0]["n"] == len(creators)
    assert store.query("SELECT count(*) AS n FROM mail_inbox")[0]["n"] == len(box.mails)
    assert set(box.moved) == set(box.mails)
    assert store.query("SELECT name FROM leases WHERE name LIKE 'mail:<%'") == []
    # only one gateway leads (deadlines, reminders, notices)
    for gateway in gateways:
        gateway.tick(force=True)
    leaders = {r["holder"] for r in store.query(
        "SELECT holder FROM leases WHERE name = 'mail:leader'")}
    assert len(leaders) == 1 and leaders <= {g.holder for g in gateways}


def test_a_mail_claimed_elsewhere_is_left_in_the_mailbox(db_url: str) -> None:
    mail = raw_mail("late@player.test", "help")
    box = SharedBox(mail)
    first, second = (Gateway(desk(db_url), config(), Sender(), box) for _ in range(2))
    message_key = read_mail(mail, config().address, 1_000_000).key
    assert first.desk.ledger.claim(message_key, first.holder)  # first is on it
    assert second.receive(mail) == ELSEWHERE
    assert second.poll() == 0 and not box.moved  # left for its gateway to move
    first.desk.ledger.unclaim(message_key, first.holder)
    assert second.poll() == 1 and box.moved["1"] == 1
    assert [to for to, _ in second.outbox.sent] == ["late@player.test"]  # type: ignore[attr-defined]
