"""``umpire bench mail``: what the email gateway handles per second, and how long a player
waits for the answer — against dovecot (IMAP over TLS) and an SMTP server that wants
STARTTLS and a login, both on loopback, as in the tests.

Printed figures (no timed asserts):

* ``orders``: N order mails (Duel, no pictures) put in the mailbox at once, then read,
  applied, answered, the other seats told, and moved out — mails per second, and the
  ratio of one mail's cost to the order alone (``GameService.submit`` in-process);
* ``set-up``: a Stalin's Tanks hidden set-up and entry (36 mails, a map picture in every
  reply and notice) — mails per second;
* ``latency``: from IMAP APPEND to the reply arriving at the SMTP server, the gateway
  running with IDLE — median and 90th percentile over M single mails (dovecot tells an
  idling client of new mail about half a second after it arrives; the APPEND itself, a
  new TLS login, is counted too);
* ``burst`` (issue 26): one order mail to each of 20 games appended at once, the gateway
  running with IDLE — APPEND to each game's reply, p50/p95/max, and the p95 of each
  reply's wait over (one mail's median latency + one mail's cost in the ``orders`` run x
  its place among the 20): how far a burst's replies fall behind a queue served in turn.

Target (issue 26, the same form as the Discord bot's follow-up): the burst's reply / (one
mail's latency + its cost x its place) <= 1.5x at p95.

Run: ``uv run umpire bench mail`` (``--actions N``: mails in the orders run, at most 400;
below 20, a smoke run: 3 latency mails, a 3-game burst, no set-up run).
Needs Debian's dovecot (``apt-get install dovecot-imapd``).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import Figures, percentile  # noqa: E402
from bot.mail.config import MailConfig  # noqa: E402
from bot.seat_secrets import new_secret  # noqa: E402
from bot.service import Actor, GameService  # noqa: E402
from bot.store import Store  # noqa: E402
from tests.kernel import duel  # noqa: E402,F401  (registers the Duel test game)
from tests.mail.servers import (  # noqa: E402
    MAIL_PASSWORD,
    SMTP_PASSWORD,
    SMTP_USER,
    Dovecot,
    LocalCA,
    SmtpSink,
    dovecot_binary,
)
from tests.mail.support import UMPIRE, raw_mail  # noqa: E402
from tests.mail.table import Table  # noqa: E402

#: The burst's reply over a queue served in turn, p95 (issue 26).
BURST_P95 = 1.5

DUEL = "tests.kernel.duel:DuelGame"


def _config(dovecot: Dovecot, sink: SmtpSink, ca: LocalCA, folder: Path) -> MailConfig:
    return MailConfig.model_validate({
        "address": UMPIRE, "database": str(folder / "umpire.db"), "tick_seconds": 3600,
        "imap": {"host": "localhost", "port": dovecot.imaps_port, "tls": "implicit",
                 "user": dovecot.new_mailbox(), "ca_file": str(ca.ca_file),
                 "poll_seconds": 0.2},
        "smtp": {"host": "localhost", "port": sink.port, "tls": "starttls",
                 "user": SMTP_USER, "ca_file": str(ca.ca_file)},
    })


def _duel(service: GameService) -> tuple[str, dict[str, str]]:
    gm, red, blue = (Actor.mail(a) for a in ("gm@bench.test", "red@bench.test",
                                            "blue@bench.test"))
    keys = {"red": new_secret(), "blue": new_secret()}
    game_id = service.create_game(gm, DUEL, creator_secret=new_secret()).id
    service.seat(game_id, gm, "red", red, secret=keys["red"])
    service.seat(game_id, gm, "blue", blue, secret=keys["blue"])
    service.start(game_id, gm)
    service.submit(game_id, red, "trap 1")
    return game_id, keys


def _passes(game_id: str, keys: dict[str, str], count: int, start: int = 0) -> list[bytes]:
    mails = []
    for number in range(start, start + count):
        side = "red" if number % 2 == 0 else "blue"
        mails.append(raw_mail(f"{side}@bench.test", f"password {keys[side]}\npass",
                              subject=f"[umpire {game_id}] pass"))
    return mails


def _orders(dovecot: Dovecot, sink: SmtpSink, ca: LocalCA, folder: Path, count: int,
            out: Callable[[str], None]) -> float:
    config = _config_for(folder / "orders", dovecot, sink, ca)
    assert config.imap is not None
    table = Table(dovecot, str(config.imap.user), sink, config)
    game_id, keys = _duel(table.service)
    dovecot.append(*_passes(game_id, keys, count), user=table.mailbox)
    sent = len(sink.received)
    started = time.perf_counter()
    handled = table.gateway.poll()
    seconds = time.perf_counter() - started
    mails_out = len(sink.received) - sent
    # The order alone, in-process, on a game of its own.
    service = GameService(Store(folder / "alone.db", synchronous="NORMAL"))
    alone_id, _ = _duel(service)
    red, blue = Actor.mail("red@bench.test"), Actor.mail("blue@bench.test")
    started = time.perf_counter()
    for number in range(count):
        service.submit(alone_id, red if number % 2 == 0 else blue, "pass")
    alone = (time.perf_counter() - started) / count
    per_mail = seconds / max(handled, 1)
    out(f"orders   {handled} mails in {seconds:.2f} s: {handled / seconds:.1f} mails/s "
        f"({mails_out} mails sent); one mail {per_mail * 1000:.0f} ms = "
        f"{per_mail / alone:.0f} x the order alone ({alone * 1000:.1f} ms)")
    return per_mail


def _config_for(folder: Path, dovecot: Dovecot, sink: SmtpSink, ca: LocalCA) -> MailConfig:
    folder.mkdir(parents=True, exist_ok=True)
    return _config(dovecot, sink, ca, folder)


def _setup(dovecot: Dovecot, sink: SmtpSink, ca: LocalCA, folder: Path,
           out: Callable[[str], None]) -> None:
    from tests.bot.test_discord_tanks import ENTRIES, HIDDEN, PLACED

    config = _config_for(folder / "setup", dovecot, sink, ca)
    assert config.imap is not None
    table = Table(dovecot, str(config.imap.user), sink, config,
                  games={"tanks": "tanks"})
    gm, gerd, sasha = (table.player(a) for a in ("gm@bench.test", "gerd@bench.test",
                                                 "sasha@bench.test"))
    created = table.reply_to(gm, table.send(gm, "create tanks pakfront"))
    game_id = created.header("X-Umpire-Game")
    gm.secret = created.text.split("secret: ")[1].split()[0]
    for player, side in ((gerd, "german"), (sasha, "soviet")):
        player.game_id = game_id
        joined = table.reply_to(player, table.send(player, f"join {game_id} {side}"))
        player.secret = joined.text.split("secret: ")[1].split()[0]
    gm.game_id = game_id
    table.send(gm, "start")
    mails = [*(f"hide {u} {h}" for u, h in HIDDEN.items()),
             *(f"place {u} 01{n:02d}" for n, u in enumerate(PLACED, start=4))]
    raws = [raw_mail(gerd.address, f"password {gerd.secret}\n{line}", gerd.subject)
            for line in [*mails, "done"]]
    raws += [raw_mail(sasha.address, f"password {sasha.secret}\nmove {u} {n:02d}01",
                      sasha.subject) for n, u in enumerate(ENTRIES, start=1)]
    dovecot.append(*raws, user=table.mailbox)
    sent = len(sink.received)
    started = time.perf_counter()
    handled = table.gateway.poll()
    seconds = time.perf_counter() - started
    pictures = sum(len(m.pngs) for m in sink.received[sent:])
    out(f"set-up   {handled} Stalin's Tanks mails in {seconds:.2f} s: "
        f"{handled / seconds:.1f} mails/s ({len(sink.received) - sent} mails sent, "
        f"{pictures} map pictures)")


def _latency(dovecot: Dovecot, sink: SmtpSink, ca: LocalCA, folder: Path, count: int,
             out: Callable[[str], None]) -> float:
    config = _config_for(folder / "latency", dovecot, sink, ca)
    assert config.imap is not None
    table = Table(dovecot, str(config.imap.user), sink, config)
    game_id, keys = _duel(table.service)
    stop = threading.Event()
    runner = threading.Thread(target=table.gateway.run, args=(stop,), daemon=True)
    runner.start()
    times: list[float] = []
    try:
        time.sleep(0.5)
        for number, raw in enumerate(_passes(game_id, keys, count)):
            seen = len(sink.received)
            started = time.perf_counter()
            dovecot.append(raw, user=table.mailbox)
            if not _replies(sink, seen, started + 30, lambda games: bool(games)):
                raise RuntimeError(f"no reply to mail {number} within 30 s")
            times.append(time.perf_counter() - started)
    finally:
        stop.set()
        runner.join(timeout=10)
    times.sort()
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    out(f"latency  APPEND -> reply over {count} mails (IDLE): median "
        f"{statistics.median(times) * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms")
    return statistics.median(times)


def _replies(sink: SmtpSink, seen: int, deadline: float,
             enough: Callable[[dict[str, float]], bool]) -> dict[str, float]:
    """The first auto-reply about each game among the mails the sink receives after its
    first ``seen``, with when it arrived (perf_counter seconds), until ``enough`` of them
    or the deadline. Woken by the sink at each mail, reading each new mail once: the
    watcher takes no CPU from the gateway it measures while it waits."""
    found: dict[str, float] = {}
    with sink.changed:
        while not enough(found):
            for mail in sink.received[seen:]:
                game = mail.header("X-Umpire-Game")
                if game and mail.header("Auto-Submitted") == "auto-replied" \
                        and game not in found:
                    found[game] = time.perf_counter()
            seen = len(sink.received)
            left = deadline - time.perf_counter()
            if enough(found) or left <= 0:
                break
            sink.changed.wait(left)
    return found


def _burst(dovecot: Dovecot, sink: SmtpSink, ca: LocalCA, folder: Path, games: int,
           single: float, per_mail: float, out: Callable[[str], None], figures: Figures
           ) -> None:
    config = _config_for(folder / "burst", dovecot, sink, ca)
    assert config.imap is not None
    table = Table(dovecot, str(config.imap.user), sink, config)
    duels = [_duel(table.service) for _ in range(games)]
    stop = threading.Event()
    runner = threading.Thread(target=table.gateway.run, args=(stop,), daemon=True)
    runner.start()
    try:
        time.sleep(0.5)
        mails = [_passes(game_id, keys, 1)[0] for game_id, keys in duels]
        seen = len(sink.received)
        started = time.perf_counter()
        dovecot.append(*mails, user=table.mailbox)
        replied = _replies(sink, seen, started + 60 + 2 * games,
                           lambda found: len(found) >= games)
        arrived = {game: at - started for game, at in replied.items()}
    finally:
        stop.set()
        runner.join(timeout=10)
    if len(arrived) < games:
        raise RuntimeError(f"{games - len(arrived)} of {games} games got no reply in time")
    waits = sorted(arrived.values())
    ratios = sorted(wait / (single + per_mail * place)
                    for place, wait in enumerate(waits, start=1))
    p95 = percentile(waits, 0.95)
    out(f"burst    {games} games, one mail each appended at once (IDLE): APPEND -> reply "
        f"p50 {statistics.median(waits) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {waits[-1] * 1000:.0f} ms; / (one mail's latency + its cost x its place) "
        f"p95 {percentile(ratios, 0.95):.2f}x")
    # the same form as the Discord bot's follow-up (issue 26): each reply over what a
    # queue served in turn would take to reach it, p95
    figures.add(f"mail burst of {games}: reply / (one mail's latency + cost x place) p95",
                percentile(ratios, 0.95), BURST_P95, "x")
    figures.add(f"mail burst of {games}: APPEND -> reply p95", 1000 * p95, None, " ms")
    figures.add("mail one mail alone: APPEND -> reply p50", 1000 * single, None, " ms")


def run(actions: int = 100, out: Callable[[str], Any] = print) -> dict[str, float]:
    if dovecot_binary() is None:
        out("umpire bench mail: dovecot is not installed (apt-get install dovecot-imapd)")
        return {}
    os.environ.setdefault("UMPIRE_IMAP_PASSWORD", MAIL_PASSWORD)
    os.environ.setdefault("UMPIRE_SMTP_PASSWORD", SMTP_PASSWORD)
    folder = Path(tempfile.mkdtemp(prefix="umpire-bench-mail-"))
    ca = LocalCA(folder)
    dovecot, sink = Dovecot(ca), SmtpSink(ca)
    dovecot.start()
    sink.start()
    try:
        out("umpire bench mail — dovecot (IMAP, TLS) and an SMTP server (STARTTLS, login) "
            "on loopback")
        smoke = actions < 20  # a smoke run: fewer mails, no set-up run
        per_mail = _orders(dovecot, sink, ca, folder, max(4 if smoke else 10,
                                                          min(actions, 400)), out)
        if not smoke:
            _setup(dovecot, sink, ca, folder, out)
        single = _latency(dovecot, sink, ca, folder, 3 if smoke else 20, out)
        figures = Figures()
        _burst(dovecot, sink, ca, folder, 3 if smoke else 20, single, per_mail, out, figures)
    finally:
        sink.stop()
        dovecot.stop()
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    run()
