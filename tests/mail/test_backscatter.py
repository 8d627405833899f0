"""Backscatter (issue 24): a mail that the receiving provider (a trusted authserv-id) found
forged — DMARC failed, or SPF failed without a passing DKIM signature — is neither read nor
answered, so a forged From cannot make Umpire mail the real holder of the address; it is
counted in the log and the status. Results of an untrusted server, or written further
down by the sender, do not count."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.mail.authresults import failure
from bot.mail.gateway import Gateway
from bot.mail.health import read
from tests.mail.support import config, desk, raw_mail
from tests.mail.test_gateway import MemoryBox, MemorySender

TRUSTED = "mx.umpire.test"
FORGED = (f"{TRUSTED}; spf=fail (sender not allowed) smtp.mailfrom=player.test; "
          "dkim=none; dmarc=fail (p=REJECT) header.from=player.test")
GOOD = f"{TRUSTED}; spf=pass smtp.mailfrom=player.test; dkim=pass; dmarc=pass"


@pytest.mark.parametrize(("headers", "trusted", "fails"), [
    ([FORGED], [TRUSTED], True),
    ([GOOD], [TRUSTED], False),
    ([FORGED], [], False),  # no trusted authserv-id configured: nothing is believed
    ([FORGED.replace(TRUSTED, "mx.elsewhere.test")], [TRUSTED], False),
    ([f"{TRUSTED}; spf=fail smtp.mailfrom=x; dkim=pass header.d=player.test"], [TRUSTED],
     False),  # a DKIM signature passed: a forwarder broke SPF only
    ([f"{TRUSTED}; spf=fail smtp.mailfrom=x; dkim=none"], [TRUSTED], True),
    ([FORGED, GOOD], [TRUSTED], True),  # the topmost trusted header decides
    ([f"{TRUSTED.upper()} 1; dmarc=fail"], [TRUSTED], True),  # a version after the id
])
def test_the_topmost_trusted_result_decides(headers: list[str], trusted: list[str],
                                            fails: bool) -> None:
    assert (failure(headers, trusted) is not None) == fails


def test_a_forged_mail_is_not_answered_and_is_counted(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    office = desk(tmp_path / "umpire.db")
    settings = config(trusted_authserv_ids=[TRUSTED])
    box = MemoryBox(
        raw_mail("ann@player.test", "create duel", headers={"Authentication-Results": FORGED}),
        raw_mail("bob@player.test", "help", headers={"Authentication-Results": GOOD}))
    sender = MemorySender()
    gateway = Gateway(office, settings, sender, box)
    caplog.set_level(logging.INFO, logger="umpire.mail")
    assert gateway.poll() == 2 and box.waiting() == []
    assert [to for to, _ in sender.sent] == ["bob@player.test"]  # ann's real owner: nothing
    assert office.service.store.game_ids() == []  # and the forged mail did nothing
    assert any("failed its sender's authentication: DMARC failed" in r.getMessage()
               for r in caplog.records)
    health = read(office.service.store)
    assert health is not None and health.unauthenticated == 1
