"""The secret differential, the red team's main leak check: two worlds that differ in one
secret, every output compared.

Two games of a Stalin's Tanks scenario with a secret set-up are played through the service
(each in its own database, with the same dice seed, clock, seats and orders) from the very
first set-up order. They differ in one secret of the side setting up in secret: a hidden
unit or a mine in another hex, or two face-down units of different types swapped. After
every action, until the first reveal, everything the public and the other side read is
taken from both worlds and compared: the outputs of the registered producers
(:data:`COMPARED`: views and board texts, notices, legal lists, autocomplete, log,
record, game info, GIF captions), the refusals of orders probing the secret's hexes, and
the pictures drawn for them. Any difference is a leak, however it is worded — the token
scan (:mod:`bot.redteam.leaks`) only finds the words it knows. The commitments and salts
published for the secret set-ups differ between the worlds by design (they commit to the
secret): they are masked before comparing.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.registry import load_game
from bot.redteam.leaks import REVEALS, Clock, Tally
from bot.redteam.outputs import PRODUCERS, Moment
from bot.service import Actor, GameService
from bot.store import Store, loads

#: The producers whose outputs are compared between the worlds (the others hold what
#: differs by design: the mail's message ids and seat passwords; refusals are probed here).
COMPARED = ("views", "notices", "legal lists", "autocomplete", "log", "export", "info",
            "GIF captions", "web page")
#: Every how many actions the costlier outputs are compared (and before and after the
#: set-up): the pictures, and producers by name (the others: after every action).
PICTURES_EVERY = 6
COSTLY = {"GIF captions": 12, "autocomplete": 3, "web page": 12}
FIGURE = "differential: {game} secret set-up"


def _setup_orders(rules: Any, scenario: str, rnd: random.Random
                  ) -> tuple[list[tuple[str, str]], str | None]:
    """A random set-up of every side (side, order), and the side whose set-up is secret."""
    state = rules.setup(scenario)
    secret_side = None
    orders: list[tuple[str, str]] = []
    index = 0
    while getattr(state, "phase", "") == "setup":
        side = rules.acting_side(state)
        if rules.private_input(state) == side:
            secret_side = side
        legal = rules.legal_orders(state, side)
        places = [o for o in legal if o.split()[0] in ("place", "hide", "mine")]
        secret = [o for o in places if o.split()[0] != "place"]  # few where terrain decides
        if secret and rnd.random() < 0.5:
            places = secret
        order = rnd.choice(places) if places and rnd.random() < 0.97 else "done"
        if order == "done" and "done" not in legal:
            order = rnd.choice(places)
        dice = CommittedDice(b"\x22" * 32, "setup", start_index=index)
        outcome = rules.apply(state, side, rules.parse(order), dice)
        index += len(outcome.rolls)
        state = outcome.state
        orders.append((side, order))
    return orders, secret_side


def _variant(rules: Any, scenario: str, orders: list[tuple[str, str]], secret_side: str,
             rnd: random.Random) -> list[tuple[str, str]] | None:
    """The same set-up with one of the secret side's secrets changed: a hidden unit or a
    mine in another hex, or two face-down units of different types swapped."""
    ours = [i for i, (side, order) in enumerate(orders) if side == secret_side
            and order.split()[0] in ("hide", "mine", "place")]
    if not ours:
        return None
    mode = rules.setup(scenario).flags.get("hidden", {}).get(secret_side, {}).get("mode")
    if mode == "face-down":
        placed = [i for i in ours if orders[i][1].startswith("place")]
        for _ in range(20):
            a, b = rnd.sample(placed, 2) if len(placed) > 1 else (placed[0], placed[0])
            ua, ub = orders[a][1].split()[1], orders[b][1].split()[1]
            if ua.rsplit("-", 1)[0] != ub.rsplit("-", 1)[0]:
                changed = list(orders)
                changed[a] = (secret_side, orders[a][1].replace(f" {ua} ", f" {ub} ", 1))
                changed[b] = (secret_side, orders[b][1].replace(f" {ub} ", f" {ua} ", 1))
                return changed
        return None
    hidden = [i for i in ours if orders[i][1].split()[0] in ("hide", "mine")]
    if not hidden:
        return None
    target = rnd.choice(hidden)
    verb, *rest = orders[target][1].split()
    for i, state in _states(rules, scenario, orders):
        if i == target:
            side, order = orders[i]
            legal = rules.legal_orders(state, side)
            same = [o for o in legal if o.split()[0] == verb and o != order and (
                verb == "mine" or o.split()[1] == rest[0])]
            rnd.shuffle(same)
            for choice in same:  # one the rest of the set-up still fits
                changed = list(orders)
                changed[target] = (side, choice)
                if _replays(rules, scenario, changed):
                    return changed
            return None
    return None


def _states(rules: Any, scenario: str, orders: list[tuple[str, str]]) -> Iterator[
        tuple[int, Any]]:
    """(i, the state before order i) of a set-up played in turn (the caller stops early)."""
    state = rules.setup(scenario)
    index = 0
    for i, (side, order) in enumerate(orders):
        yield i, state
        outcome = rules.apply(state, side, rules.parse(order),
                              CommittedDice(b"\x22" * 32, "setup", start_index=index))
        index += len(outcome.rolls)
        state = outcome.state


def _replays(rules: Any, scenario: str, orders: list[tuple[str, str]]) -> bool:
    """Whether every order of a set-up is legal in turn. A variant's later orders must
    all stay legal: else the secret side's own refusal (its unit already in the hex the
    other world's later order uses) would be counted as a difference — a false alarm,
    as seed 2727 found on Close to the end."""
    return all(orders[i][1] in rules.legal_orders(state, orders[i][0])
               for i, state in _states(rules, scenario, orders))


class World:
    """One of the two games, through the service, in its own database."""

    def __init__(self, folder: Path, name: str, game: str, scenario: str) -> None:
        self.clock = Clock()
        self.service = GameService(Store(folder / f"{name}.db", synchronous="OFF"),
                                   clock=self.clock, seed_source=lambda n: b"\x5a" * n)
        self.gm = Actor.discord("950")
        rules = load_game(game)
        self.players = {str(side): Actor.discord(str(951 + n))
                        for n, side in enumerate(rules.sides)}
        info = self.service.create_game(self.gm, game, scenario, game_id="differential")
        self.game_id = info.id
        for side, actor in self.players.items():
            self.service.seat(self.game_id, self.gm, side, actor)
        self.service.start(self.game_id, self.gm)
        self.rules = self.service.rules(self.game_id)
        self.moment = Moment(self.service, self.game_id, self.rules,
                             {PUBLIC: Actor.discord("999"), GM: self.gm, **self.players}, 0)
        self.pack: Any = None

    def masks(self) -> dict[str, str]:
        """The published commitments and salts of the secret set-ups (they differ between
        the worlds by design), each with the placeholder it is compared as."""
        view = self.service.view(self.game_id, self.gm, GM)
        out: dict[str, str] = {}
        for kind in ("commitments", "salts"):
            for side, value in (getattr(view, kind, None) or {}).items():
                if value:
                    out[str(value)] = f"<{side} {kind}>"
        return out

    def submit(self, side: str, text: str) -> bool:
        result = self.service.submit(self.game_id, self.players[side], text)
        self.moment.results = [result]
        return result.ok

    def revealed(self, after: int) -> bool:
        """Whether an action after ``after`` revealed (part of) a secret."""
        return any(event.get("kind") in REVEALS
                   for action in self.service.store.actions(self.game_id, after=after)
                   for event in loads(action["events"], []))

    def outputs(self, readers: list[str], step: int) -> dict[tuple[str, str, int], str]:
        """Everything ``readers`` read now: (producer, audience, n) -> text, masked."""
        m = self.moment
        m.step, m.only = step, readers
        found: dict[tuple[str, str, int], str] = {}
        masks = self.masks()
        for name in COMPARED:
            registered = PRODUCERS[name]
            if step % COSTLY.get(name, 1):
                continue
            counts: dict[str, int] = {}
            for output in registered.produce(m):
                n = counts[output.audience] = counts.get(output.audience, 0) + 1
                text = output.text
                for secret, placeholder in masks.items():
                    text = text.replace(secret, placeholder)
                found[(name, output.audience, n)] = text
        m.notes.pop("legal", None)
        if step % PICTURES_EVERY == 0:
            found.update(self.pictures(readers))
        return found

    def pictures(self, readers: list[str]) -> dict[tuple[str, str, int], str]:
        """The pictures drawn for ``readers`` (the whole map and the zoom), as digests."""
        import render

        if self.pack is None:
            try:
                self.pack = render.load_pack(self.rules.name, self.rules.pack)
            except render.NoPicture:
                self.pack = False
        if self.pack is False:
            return {}
        found: dict[tuple[str, str, int], str] = {}
        for audience in readers:
            view = self.service.view(self.game_id, self.moment.actors[audience], audience)
            for n, crop in enumerate((False, True)):
                image = render.draw(view, self.pack, crop=crop)
                found[("pictures", audience, n)] = hashlib.sha256(
                    image.tobytes()).hexdigest()
        return found

    def refusal(self, side: str, text: str) -> str:
        """What the rules answer ``side`` for ``text`` now (applied to a copy, never
        stored)."""
        state = self.service.load_state(self.game_id)
        try:
            self.rules.apply(state, side, self.rules.parse(text),
                             CommittedDice(b"\x44" * 32, "probe"))
        except RuleError as error:
            return " ".join([str(error), *error.legal])
        return "accepted"

    def close(self) -> None:
        self.service.store.close()


def differential(game: str, scenario: str, steps: int, seed: int, tally: Tally,
                 folder: Path | None = None, *, first: bool = False) -> None:
    """One pair of worlds differing only in a secret of the set-up, compared from the
    first set-up order until the first reveal or ``steps`` actions after the set-up
    (``first``: until the first difference, too)."""
    rules = load_game(game)
    rnd = random.Random(seed)
    orders, secret_side = _setup_orders(rules, scenario, rnd)
    if secret_side is None:
        return
    changed = _variant(rules, scenario, orders, secret_side, rnd)
    if changed is None:
        return
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="umpire-differential-") as made:
            _compare(Path(made), game, scenario, orders, changed, secret_side, steps, rnd,
                     tally, first)
    else:
        _compare(folder, game, scenario, orders, changed, secret_side, steps, rnd, tally,
                 first)


class _Found(Exception):
    """The first difference, when that is all that is asked."""


def _compare(folder: Path, game: str, scenario: str, orders: list[tuple[str, str]],
             changed: list[tuple[str, str]], secret_side: str, steps: int,
             rnd: random.Random, tally: Tally, first: bool) -> None:
    figure = FIGURE.format(game=game)
    a = World(folder, f"{scenario}-{rnd.random():.12f}-a", game, scenario)
    b = World(folder, f"{scenario}-{rnd.random():.12f}-b", game, scenario)
    try:
        readers = [PUBLIC, *(s for s in a.rules.sides if s != secret_side)]

        def compare(step: int, what: str) -> None:
            x, y = a.outputs(readers, step), b.outputs(readers, step)
            for key in sorted(set(x) | set(y)):
                tally.count(figure, x.get(key) != y.get(key),
                            f"{scenario} {what}: {key[0]} for {key[1]} differs: "
                            f"{_difference(x.get(key), y.get(key))}")
                if first and x.get(key) != y.get(key):
                    raise _Found

        compare(0, "before the set-up")
        step = 0
        for (side, order), (_, other) in zip(orders, changed, strict=True):
            step += 1
            if a.submit(side, order) != b.submit(side, other):
                tally.count(figure, True, f"{scenario}: set-up order {order!r} | {other!r}: "
                            "one world refused it")
                return
            compare(step, f"after set-up order {step}")
        compare(0, "after the set-up")  # every output, pictures and captions included
        _play_on(a, b, readers, secret_side, steps, rnd, step, compare, tally, figure,
                 scenario)
    except _Found:
        pass
    finally:
        a.close()
        b.close()


def _play_on(a: World, b: World, readers: list[str], secret_side: str, steps: int,
             rnd: random.Random, step: int, compare: Callable[[int, str], None],
             tally: Tally, figure: str, scenario: str) -> None:
    """The same orders on in both worlds until the first reveal: each compared after."""
    probes = _secret_hexes(a, b, secret_side)
    for _ in range(steps):
        state: Any = a.service.load_state(a.game_id)
        side = a.rules.acting_side(state)
        if side is None:
            return
        if side != secret_side:
            mover = next((u.id for u in state.units if u.side == side and u.status == "on"),
                         None)
            for h in probes[:4] if mover is not None else []:
                text = f"move {mover} {h}"
                x, y = a.refusal(side, text), b.refusal(side, text)
                tally.count(figure, x != y, f"{scenario}: {side}'s refusal of {text}: "
                            f"{_difference(x, y)}")
        legal = a.service.legal_orders(a.game_id, a.players[side], side)
        if not legal:
            return
        action = [o for o in legal if o != "done"]
        order = (rnd.choice(action) if action and rnd.random() < 0.7 else
                 "done" if "done" in legal else rnd.choice(legal))
        head = a.service.info(a.game_id).head_seq
        if not a.submit(side, order) or not b.submit(side, order):
            return
        if a.revealed(head) or b.revealed(head):
            return  # from here on the secret is (partly) known: the worlds may differ
        step += 1
        compare(step, f"after {side}: {order}")


def _secret_hexes(a: World, b: World, side: str) -> list[str]:
    found: set[str] = set()
    for world in (a, b):
        state: Any = world.service.load_state(world.game_id)
        found |= {u.hex for u in state.units if u.side == side and u.status == "on"
                  and (u.hidden or u.concealed) and u.hex}
        found |= set(state.mines.get(side, []))
    return sorted(found)


def _difference(x: str | None, y: str | None) -> str:
    """Where two outputs part, with a little context."""
    if x is None or y is None:
        return f"only in one world: {str(x or y)[:160]!r}"
    start = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q),
                 min(len(x), len(y)))
    return f"{x[max(0, start - 60):start + 80]!r} | {y[max(0, start - 60):start + 80]!r}"


def secret_scenarios(game: str = "tanks") -> list[str]:
    """The scenarios of ``game`` whose set-up has a secret (hidden, face-down, mines)."""
    rules = load_game(game)
    found = []
    for scenario in rules.scenarios():
        state = rules.setup(scenario)
        if rules.private_input(state) is not None:
            found.append(scenario)
    return found


def run_differentials(tally: Tally, *, quick: bool, seed: int, out: Callable[[str], None],
                      scenarios: Iterable[str] | None = None) -> None:
    """Pairs of worlds of every Stalin's Tanks scenario with a secret set-up."""
    started = time.monotonic()
    for scenario in scenarios if scenarios is not None else secret_scenarios():
        for number in range(1 if quick else 6):
            differential("tanks", scenario, 8 if quick else 60, seed + number, tally)
    out(f"  differential: two worlds per secret ({time.monotonic() - started:.0f} s)")
