"""The web page's timing (issue 25): no answer of the page may take longer or shorter
because of a secret of another seat.

Two worlds of a Stalin's Tanks scenario with a secret set-up (the differential's,
:class:`bot.redteam.differential.World`: the same seats, dice, clock and orders, one secret
of the set-up changed) are set up and played on until the other side is to act (never
past a reveal). Each world's page is served by the real application on a loopback port;
the other side's seat link and the public link then ask both worlds the same questions —
the page, ``/api/state``, ``/api/legal`` (all, and for one unit), ``/api/entries``,
``/api/map.png``, and refused submits of a move into each hex where one world holds a
hidden unit or a mine and the other does not — and each answer is timed from the client.

The method (docs/security.md): the two worlds are asked in turn, pair by pair (which one
first alternates; the garbage collector waits until a question's pairs are done), so the
machine's load falls on both alike. An answer leaks when the median of the pairs'
differences is over :data:`FLOOR_S` and over :data:`RELATIVE` of the median answer,
*and* at least :data:`CONSISTENT` of the pairs lean the same way — then it is measured
again with twice the pairs, and only a leak found twice is a failure (a busy machine's
burst is not found twice on the same side). A probe order accepted in either world (it
would change the game) is not sent.
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.kernel.events import PUBLIC
from adjudicator.registry import load_game
from bot.redteam.differential import World, _secret_hexes, _setup_orders, _variant
from bot.redteam.leaks import Tally
from bot.redteam.web import in_thread

FIGURE = "timing: web page answers"
#: A difference under this many seconds is never a finding (a loopback request's jitter).
FLOOR_S = 0.004
#: ... nor one under this share of the median answer.
RELATIVE = 0.25
#: The share of the pairs that must lean the same way.
CONSISTENT = 0.75
#: Pairs per question (the map picture: fewer, it is drawn).
PAIRS = {True: 9, False: 31}
PICTURE_PAIRS = {True: 5, False: 15}
#: Seconds the whole comparison may take before it is given up as a failure.
WAIT_S = 600.0
#: Actions played after the set-up, at most, until the other side is to act.
PLAY_ON = 12


@dataclass(frozen=True)
class Question:
    """One request, asked of both worlds (``path`` after ``/s/TOKEN``)."""

    label: str
    audience: str
    path: str
    order: str | None = None  # a POST of this order to /api/submit
    picture: bool = False


def _ready(a: World, b: World, secret_side: str, rnd: random.Random) -> str | None:
    """Play the same orders on in both worlds until a side other than the secret one is to
    act (never past a reveal); that side, or None."""
    for _ in range(PLAY_ON + 1):
        side = a.rules.acting_side(a.service.load_state(a.game_id))
        if side is None:
            return None
        if side != secret_side:
            return str(side)
        legal = a.service.legal_orders(a.game_id, a.players[side], side)
        order = "done" if "done" in legal else rnd.choice(legal) if legal else None
        head = a.service.info(a.game_id).head_seq
        if order is None or not a.submit(side, order) or not b.submit(side, order):
            return None
        if a.revealed(head) or b.revealed(head):
            return None
    return None


def questions(a: World, b: World, side: str, secret_side: str) -> list[Question]:
    """What the other side and the public ask: the reads, and refused moves into the hexes
    where the worlds' secrets differ (refused in both: checked on a copy first)."""
    legal = a.service.legal_orders(a.game_id, a.players[side], side)
    move = next((o.split() for o in legal if o.startswith("move ")), None)
    asked = [Question(f"{audience} {path or 'page'}", audience, path, picture=png)
             for audience in (side, PUBLIC)
             for path, png in (("", False), ("/api/state", False), ("/api/legal", False),
                               ("/api/entries", False), ("/api/map.png", True))]
    if move is None:
        return asked
    mover = move[1]
    asked.append(Question(f"{side} /api/legal?unit={mover}", side, f"/api/legal?unit={mover}"))
    secret = {world: set(_secret_hexes(world, world, secret_side)) for world in (a, b)}
    differing = sorted(secret[a] ^ secret[b]) or sorted(secret[a])[:2]
    for h in differing[:4]:  # the legal move's words, the secret's hex for its place
        text = " ".join([*move[:-1], h])
        if a.refusal(side, text) != "accepted" and b.refusal(side, text) != "accepted":
            asked.append(Question(f"{side} refused submit {text!r}", side, "/api/submit",
                                  order=text))
    return asked


def _judge(x: list[float], y: list[float]) -> tuple[bool, str]:
    """Whether paired times ``x`` (world a) and ``y`` (world b) differ (see the module's
    notes), and the figures that say so."""
    diffs = [p - q for p, q in zip(x, y, strict=True)]
    middle = statistics.median(diffs)
    typical = statistics.median([(p + q) / 2 for p, q in zip(x, y, strict=True)])
    lean = max(sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)) / len(diffs)
    found = abs(middle) > max(FLOOR_S, RELATIVE * typical) and lean >= CONSISTENT
    return found, (f"median {typical * 1000:.1f} ms, a-b {middle * 1000:+.1f} ms, "
                   f"{lean:.0%} of {len(diffs)} pairs one way")


async def _measure(a: World, b: World, asked: list[Question], quick: bool,
                   ) -> list[tuple[Question, bool, str]]:
    from aiohttp.test_utils import TestClient, TestServer

    from bot.web.app import make_app
    from bot.web.settings import WebSettings
    from bot.web.tokens import CSRF_HEADER

    unlimited = (1e6, 1e6)

    def app(world: World) -> Any:
        return make_app(world.service, WebSettings(
            per_link=unlimited, per_address=unlimited, submits=unlimited))

    tokens = {world: {aud: world.service.observer_link(world.game_id, world.gm).token
                      if aud == PUBLIC else world.service.issue_link(
                          world.game_id, world.players[aud], side=aud).token
                      for aud in {q.audience for q in asked}} for world in (a, b)}
    async with TestClient(TestServer(app(a))) as ca, TestClient(TestServer(app(b))) as cb:
        clients = {a: ca, b: cb}
        csrf: dict[tuple[World, str], str] = {}
        for world, client in clients.items():
            for aud, token in tokens[world].items():
                response = await client.get(f"/s/{token}/api/state")
                csrf[(world, aud)] = str(json.loads(await response.text()).get("csrf", ""))
        keys = iter(range(10**9))

        async def once(world: World, q: Question) -> float:
            client, token = clients[world], tokens[world][q.audience]
            started = time.perf_counter()
            if q.order is None:
                response = await client.get(f"/s/{token}{q.path}")
            else:
                response = await client.post(
                    f"/s/{token}/api/submit", headers={CSRF_HEADER: csrf[(world, q.audience)]},
                    json={"text": q.order, "key": f"timing-{next(keys)}"})
            await response.read()
            return time.perf_counter() - started

        async def pairs(q: Question, n: int) -> tuple[list[float], list[float]]:
            x: list[float] = []
            y: list[float] = []
            gc.collect()  # its passes (up to 200 ms in a busy process) wait for the pairs
            gc.disable()
            try:
                for i in range(n):
                    if i % 2:
                        y.append(await once(b, q))
                        x.append(await once(a, q))
                    else:
                        x.append(await once(a, q))
                        y.append(await once(b, q))
            finally:
                gc.enable()
            return x, y

        found: list[tuple[Question, bool, str]] = []
        for q in asked:
            n = (PICTURE_PAIRS if q.picture else PAIRS)[quick]
            await once(a, q)  # warm both (the picture's cache, the first legal list)
            await once(b, q)
            leak, figures = _judge(*await pairs(q, n))
            if leak:  # confirmed only if found again with twice the pairs
                leak, again = _judge(*await pairs(q, 2 * n))
                figures = f"{figures}; again: {again}"
            found.append((q, leak, figures))
    return found


def web_timing(game: str, scenario: str, seed: int, tally: Tally, *, quick: bool,
               folder: Path | None = None, only: Callable[[Question], bool] | None = None
               ) -> list[tuple[Question, bool, str]]:
    """One pair of worlds differing in a secret of ``scenario``'s set-up, the page's answers
    timed in both (see the module's notes); what was asked (``only``: those it keeps),
    whether it leaked, the figures.
    """
    rules = load_game(game)
    rnd = random.Random(seed)
    orders, secret_side = _setup_orders(rules, scenario, rnd)
    changed = _variant(rules, scenario, orders, secret_side, rnd) if secret_side else None
    if secret_side is None or changed is None:
        return []
    with tempfile.TemporaryDirectory(prefix="umpire-timing-") as made:
        where = folder or Path(made)
        a = World(where, f"{scenario}-{seed}-timing-a", game, scenario)
        b = World(where, f"{scenario}-{seed}-timing-b", game, scenario)
        try:
            for (side, order), (_, other) in zip(orders, changed, strict=True):
                if a.submit(side, order) != b.submit(side, other):
                    return []
            asker = _ready(a, b, secret_side, rnd)
            if asker is None:
                return []
            asked = [q for q in questions(a, b, asker, secret_side) if only is None or only(q)]
            found: list[tuple[Question, bool, str]] = in_thread(
                _measure(a, b, asked, quick), WAIT_S)
        finally:
            a.close()
            b.close()
    for q, leak, figures in found:
        tally.count(FIGURE, leak, f"{scenario}: {q.label}: {figures}")
    return found


def run_web_timing(tally: Tally, *, quick: bool, seed: int, out: Callable[[str], None],
                   scenarios: tuple[str, ...] = ("pakfront",)) -> None:
    """The page's answers timed in two worlds per scenario (``--quick``: one seed)."""
    started = time.monotonic()
    for scenario in scenarios:
        for number in range(1 if quick else 3):
            # a seed whose variant and play reach the other side's turn (most do)
            timed = any(web_timing("tanks", scenario, seed + number + 1000 * extra, tally,
                                   quick=quick) for extra in range(8))
            tally.count(FIGURE, not timed, f"{scenario}: no pair of worlds reached a turn "
                        f"of the other side (seed {seed + number})")
    out(f"  web page timing: two worlds per secret ({time.monotonic() - started:.0f} s)")


__all__ = ["FIGURE", "Question", "run_web_timing", "web_timing"]
