"""``umpire redteam [--quick]``: bounded attacks on Umpire, one line per figure.

Each figure counts what was tried and how often it failed; the command exits with status 1
when any failure count is not zero. The attacks (docs/security.md):

* the secret differential, the main leak check: two worlds differing in one secret of a
  set-up, every output the others read compared, pictures included
  (:mod:`bot.redteam.differential`);
* the web page's timing in two such worlds: its reads and refused orders into the hexes
  where the secrets differ, timed pair by pair (:mod:`bot.redteam.web_timing`);
* leak scans over random games of every scenario of both games, every output another
  audience reads (:mod:`bot.redteam.outputs` lists the producers; the web page's HTML,
  JSON and stream: :mod:`bot.redteam.web`) scanned for the secrets' words
  (:mod:`bot.redteam.leaks`);
* a self-test: four leaks planted in turn, each of which both checks must find
  (:mod:`bot.redteam.selftest`);
* parser fuzz through the service (:mod:`bot.redteam.fuzz`);
* hostile mail through the email gateway: password lines, lone surrogates, digits of
  other scripts, endless deadlines, auto-replies, header and MIME bombs, copied mail, a
  stranger's Message-ID (:mod:`bot.redteam.mail_attacks`);
* permissions, dice and records, idempotency (:mod:`bot.redteam.attacks`);
* SIGKILLs of a writing process and damaged databases (:mod:`bot.redteam.faults`).

``--quick`` is the bounded version CI runs (a few minutes); without it each attack runs
many times longer.
"""

from __future__ import annotations

import logging
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bot.redteam.attacks import run_attacks
from bot.redteam.differential import run_differentials
from bot.redteam.faults import corruptions, sigkills
from bot.redteam.fuzz import run_fuzz
from bot.redteam.leaks import Tally, run_leaks
from bot.redteam.mail_attacks import run_mail_attacks
from bot.redteam.selftest import run_selftest
from bot.redteam.web import web_page  # noqa: F401 (registers the web page's outputs)
from bot.redteam.web_timing import run_web_timing


def run(*, quick: bool, seed: int | None = None,
        out: Callable[[str], None] = print) -> Tally:
    """Run every attack; print progress, then one line per figure."""
    seed = int(time.time()) if seed is None else seed
    out(f"red team ({'quick' if quick else 'full'}, seed {seed})")
    # The service logs what the attacks provoke (a damaged snapshot passed over, an
    # internal error refused): the figures say it; the log lines would only be noise.
    logging.getLogger("bot").setLevel(logging.CRITICAL)
    tally = Tally()
    started = time.monotonic()
    run_differentials(tally, quick=quick, seed=seed, out=out)
    run_web_timing(tally, quick=quick, seed=seed, out=out)
    run_leaks(tally, quick=quick, seed=seed, out=out)
    run_selftest(tally, seed=seed, out=out)
    run_fuzz(tally, quick=quick, seed=seed, out=out)
    run_attacks(tally, quick=quick, seed=seed, out=out)
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="umpire-faults-") as folder:
        sigkills(Path(folder), tally, rnd, 4 if quick else 30, out)
        corruptions(Path(folder), tally, rnd)
        run_mail_attacks(Path(folder), tally, rnd, quick=quick, out=out)
    out(f"{'figure':<52} {'tried':>8} {'failed':>7}")
    for figure in sorted(tally.tried):
        out(f"{figure:<52} {tally.tried[figure]:>8} {tally.failed[figure]:>7}")
        for example in tally.examples.get(figure, []):
            out(f"    e.g. {example}")
    failed = sum(tally.failed.values())
    out(f"{len(tally.tried)} figures, {sum(tally.tried.values())} tried, {failed} failed "
        f"in {time.monotonic() - started:.0f} s")
    return tally
