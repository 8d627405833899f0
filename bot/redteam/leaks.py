"""Leak scans: random games of every scenario, every output scanned for secrets.

Two methods, each counting what it tried and how often it failed:

* **Token scan.** Games are played through the service by random players (legal orders,
  secret set-ups, standing orders, undos, deadlines, rollbacks, resignations), and after
  every action each registered output producer (:mod:`bot.redteam.outputs`, and the email
  gateway's mail, :mod:`bot.redteam.mail`) is run. In every output an audience reads, the
  scan looks for the secrets that audience may not know at that moment — another side's
  hidden and face-down units, unfound mines, standing orders, secret salts, email
  addresses and seat secrets, and the dice seed before the end (for the GM too).
* **Differential probes** (Stalin's Tanks set-ups): two games that differ only in one side's
  secret — a hidden unit or a mine in another hex, two face-down units swapped — are played
  on with the same orders; until the first reveal everything the public and the other side
  see (views, the events they are told, their legal orders, their refusals) must be equal.
  Deadlines likewise: the deadline passes on two copies of the game that differ only in
  the acting side's standing order; what the others are told must be equal.
"""

from __future__ import annotations

import random
import re
import sqlite3
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, PUBLIC, visible_to
from adjudicator.registry import load_game
from bot.redteam.mail import send_order  # (and the mail producer is registered)
from bot.redteam.outputs import PRODUCERS, Moment
from bot.service import Actor, GameService, SubmitResult
from bot.store import Store, loads

REVEALS = ("revealed", "mine-revealed", "face-up", "secrets-revealed")
GAMES = ("tanks", "stalingrad")


@dataclass
class Tally:
    """Tried and failed per figure, with a few examples of each failure."""

    tried: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def count(self, figure: str, failed: bool, example: str = "") -> None:
        self.tried[figure] += 1
        if failed:
            self.failed[figure] += 1
            seen = self.examples.setdefault(figure, [])
            if len(seen) < 3:
                seen.append(example[:300])


# ---- what each audience may not know ---------------------------------------------------------

def _word(token: str) -> str:
    return r"(?<![\w-])" + re.escape(token) + r"(?![\w-])"


def _pattern(token: str) -> re.Pattern[str]:
    """A token as a whole word; ``ID@HEX`` (a unit in a hex): the two close together."""
    if "@" in token:
        unit, where = token.split("@")
        near = r"[^\n]{0,60}?"
        return re.compile(f"{_word(unit)}{near}{_word(where)}|{_word(where)}{near}{_word(unit)}")
    return re.compile(_word(token))


def _attributed(side: str, token: str, sides: list[str]) -> re.Pattern[str]:
    """``token`` said of ``side``: in one line of text (``soviet: standing order ...``,
    ``soviet takes back: ...``) with no other side named in between, or in one JSON record
    whose ``side`` is ``side``."""
    others = "|".join(re.escape(s) for s in sides if s != side) or "(?!)"
    gap = f'(?:(?!{others})[^\\n{{}}";])'
    return re.compile(f'{_word(side)}{gap}{{0,40}}?{_word(token)}'
                      f'|"side": "{re.escape(side)}"[^\\n{{}}]{{0,40}}?{_word(token)}')


def _standing_forms(kind: str, policy: str) -> list[str]:
    """How a standing order reads: as typed, and as its event says it."""
    return [f"standing {kind} {policy}", f"standing order {kind} = {policy}"]


def _standing_patterns(side: str, kind: str, policy: str, sides: list[str]
                       ) -> list[re.Pattern[str]]:
    """Where another reader may not find ``side``'s standing order ``kind`` = ``policy``
    (the first two: whoever the reader is; the others: unless it holds the same order).

    The text of a policy is no secret: the rules list every policy, every side reads
    them in its help and in its own default answers (``'standing voluntary ask' to be
    asked``), and both sides may hold the same one. The secret is whose it is: the policy
    said of ``side`` (:func:`_attributed`), or shown as the reader's own — marked so in a
    list of policies, or in a view's ``standing``."""
    return [*(_attributed(side, form, sides) for form in _standing_forms(kind, policy)),
            re.compile(_word(f"standing {kind} {policy}") + re.escape(" (yours now)")),
            re.compile(r'"standing": \{[^{}]*' + re.escape(f'"{kind}": "{policy}"'))]


def _taken_back(m: Moment) -> dict[str, list[str]]:
    """side -> its secret orders that were taken back or rolled back: what it meant to
    do stays its secret (a unit hidden and taken back may be hidden there again). Secret
    by the rules (:meth:`~adjudicator.kernel.game.Game.is_secret`: standing orders, hidden
    placements, mines) or given as private input (a face-down set-up)."""
    found: dict[str, list[str]] = {}
    for action in m.service.store.actions(m.game_id):
        if action["reverted_by"] is None or action["kind"] != "order" or not action["text"]:
            continue
        private = bool((loads(action["payload"], None) or {}).get("private"))
        for line in str(action["text"]).splitlines():
            line = " ".join(line.split())
            if line and (private or m.rules.is_secret_text(line)):
                found.setdefault(str(action["side"]), []).append(line)
    return found


def _public_places(m: Moment, state: Any) -> tuple[set[str], set[str]]:
    """Every ``unit@hex`` the public has ever seen, and every minefield it has been shown:
    a unit placed in sight, then taken back and hidden there, or one the rules revealed
    (in the hex it was revealed in, though it moved on in the same action) and a rollback
    hid again, is no secret the scan should find; no more is a minefield found and then
    rolled back. A reveal counts only if the state agrees at the moment it is first seen
    (the unit is revealed, the minefield known): a public event naming a hidden unit's hex
    is a leak, found then."""
    seen: set[str] = m.notes.setdefault("public_places", set())
    mines: set[str] = m.notes.setdefault("public_mines", set())
    view = m.service.view(m.game_id, m.actors[PUBLIC], PUBLIC)
    for unit in getattr(view, "units", []):
        if getattr(unit, "hex", None) and not getattr(unit, "concealed", False):
            seen.add(f"{unit.id}@{unit.hex}")
    shown = {u.id for u in state.units if not u.hidden and not u.concealed}
    for action in m.service.store.actions(m.game_id, after=m.notes.get("told_seq", 0)):
        m.notes["told_seq"] = int(action["seq"])
        for event in loads(action["events"], []):
            data = event.get("data") or {}
            if event.get("audience") != PUBLIC or not data.get("hex"):
                continue
            if event.get("kind") == "revealed" and data.get("unit") in shown:
                seen.add(f"{data['unit']}@{data['hex']}")
            elif event.get("kind") == "mine-revealed" and data["hex"] in state.known_mines:
                mines.add(str(data["hex"]))
    return seen, mines


def secret_tokens(m: Moment) -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """audience -> (what, pattern) of each secret it may not read now.

    A side's secrets: its standing orders, its secret orders taken back, and in Stalin's
    Tanks its hidden and face-down units where they are, its unfound mines and its secret
    salt — until the game ends (then its record publishes them, and a game reopened after
    that has no such secrets left). Email addresses and seat secrets: for the GM and their
    holder only. The dice seed: for nobody before the end. A standing order is found where
    an output says whose it is (:func:`_standing_patterns`)."""
    state = m.state()
    rules = m.rules
    row = m.service.store.game(m.game_id)
    assert row is not None
    ended = bool(row["seed_revealed"] or m.service.store.past_seeds(m.game_id))
    own: dict[str, list[tuple[str, str]]] = {side: [] for side in rules.sides}
    standing = {side: dict(state.standing.get(side, {})) for side in rules.sides}
    if rules.name == "tanks":
        public, shown_mines = _public_places(m, state)
        for unit in state.units:
            if unit.status == "on" and (unit.hidden or unit.concealed) and unit.hex:
                place = f"{unit.id}@{unit.hex}"
                what = "hidden unit" if unit.hidden else "face-down unit"
                if place not in public:
                    own[unit.side].append((f"{unit.side}'s {what} {unit.id} in {unit.hex}",
                                           place))
        for side, hexes in state.mines.items():
            for h in hexes:
                if h not in state.known_mines and h not in shown_mines:
                    own[side] += [(f"{side}'s mine in {h}", f"mine {h}"),
                                  (f"{side}'s mine in {h}", f"mines {h}"),
                                  (f"{side}'s mine in {h}", f"{h} is mined")]
        for side, secret in state.secrets.items():
            if not secret.revealed and secret.salt:
                own[side].append((f"{side}'s secret salt", secret.salt))
    taken_back = _taken_back(m)
    # Whether each side has secrets on the map now (its own picture may show them).
    m.notes["own_secrets"] = {side: bool(own[side] or standing[side]) or (
        rules.name == "tanks" and (
            any(u.side == side and u.status == "on" and (u.hidden or u.concealed)
                for u in state.units)
            or any(h not in state.known_mines for h in state.mines.get(side, []))))
        for side in rules.sides}
    if ended:
        own = {side: [] for side in rules.sides}
        standing = {side: {} for side in rules.sides}
        taken_back = {}
    for side, secret in m.notes.get("seat_secrets", {}).items():
        own[side].append((f"the seat secret of {side}", secret))
    seats = m.service.store.seats(m.game_id)
    gm_only: list[tuple[str, str]] = []
    for seat in seats:
        if seat["email"]:
            item = (f"the address of {seat['side'] or 'the GM'}", str(seat["email"]))
            own.get(seat["side"], gm_only).append(item)
    everyone: list[tuple[str, str]] = []
    if not row["seed_revealed"] and row["server_seed"] is not None:
        everyone.append(("the dice seed before the end", bytes(row["server_seed"]).hex()))
    out: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for audience in [*m.readers, GM]:
        found = [(what, _pattern(token)) for what, token in everyone]
        if audience != GM:
            found += [(what, _pattern(token)) for what, token in gm_only]
            found += [(what, _pattern(token)) for side, secrets in own.items()
                      if side != audience for what, token in secrets]
            for side, orders in taken_back.items():
                if side == audience:
                    continue
                for text in orders:
                    words = text.split()
                    if words[0] == "standing" and len(words) == 3:
                        found += [(f"{side}'s standing order taken back: {text}", pattern)
                                  for pattern in _standing_patterns(side, words[1], words[2],
                                                                    rules.sides)[:2]]
                    else:
                        found.append((f"{side}'s secret order taken back: {text}",
                                      _pattern(text)))
            for side, policies in standing.items():
                if side == audience:
                    continue
                for kind, policy in policies.items():
                    patterns = _standing_patterns(side, kind, policy, rules.sides)
                    if standing.get(audience, {}).get(kind) == policy:
                        patterns = patterns[:2]  # the reader's own too: only whose it is
                    found += [(f"{side}'s standing order {kind} = {policy}", pattern)
                              for pattern in patterns]
        out[audience] = found
    return out


def scan(m: Moment, tally: Tally) -> None:
    """Run every producer due now and count each output as one try of its figure."""
    secrets = secret_tokens(m)
    for name, registered in PRODUCERS.items():
        if m.step % registered.every:
            continue
        figure = f"leak scan: {name}"
        try:
            outputs = list(registered.produce(m))
        except Exception as error:  # a producer that fails is a finding too
            tally.count(figure, True, f"{type(error).__name__}: {error}")
            continue
        for output in outputs:
            if output.leak is not None:
                tally.count(figure, output.leak, f"{output.audience}: {output.text}")
                continue
            found = [what for what, pattern in secrets.get(output.audience, [])
                     if pattern.search(output.text)]
            tally.count(figure, bool(found),
                        f"{output.audience} reads {found[0] if found else ''}: "
                        f"{_around(output.text, secrets, output.audience)}")


def _around(text: str, secrets: dict[str, list[tuple[str, re.Pattern[str]]]],
            audience: str) -> str:
    for _, pattern in secrets.get(audience, []):
        hit = pattern.search(text)
        if hit:
            return text[max(0, hit.start() - 80):hit.end() + 80].replace("\n", " ")
    return ""


# ---- random games through the service ----------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Table:
    """One game of ``game``/``scenario`` played by random players through the service."""

    def __init__(self, folder: Path, game: str, scenario: str, rnd: random.Random,
                 number: int, tally: Tally | None = None) -> None:
        self.folder, self.number = folder, number
        self.tally = tally if tally is not None else Tally()
        self.clock = Clock()
        self.db = folder / f"{game}-{scenario}-{number}.db"
        self.service = GameService(Store(self.db, synchronous="OFF"), clock=self.clock)
        self.rnd = rnd
        self.gm = Actor.discord("900")
        self.stranger = Actor.discord("999")
        rules = load_game(game)
        first, second = rules.sides
        self.players = {first: Actor.discord("901"), second: Actor.mail(f"{second}@red.team")}
        info = self.service.create_game(self.gm, game, scenario)
        self.game_id = info.id
        for side, actor in self.players.items():
            self.service.seat(self.game_id, self.gm, side, actor)
            self.service.add_entropy(self.game_id, actor, f"{side} {rnd.random()}")
        self.service.start(self.game_id, self.gm)
        self.rules = self.service.rules(self.game_id)
        self.moment = Moment(self.service, self.game_id, self.rules,
                             {PUBLIC: self.stranger, GM: self.gm, **self.players}, 0)
        self.reopened = False

    def finished(self) -> bool:
        return self.service.info(self.game_id).status == "finished"

    def step(self, last: bool) -> None:
        """One action (or attempt) by a random player; its results go to the moment."""
        m, rnd, service = self.moment, self.rnd, self.service
        state = m.state()
        side = self.rules.acting_side(state)
        if side is None:
            if not self.reopened and rnd.random() < 0.5:  # a GM reopens the finished game
                self.reopened = True
                head = service.info(self.game_id).head_seq
                m.results.append(service.rollback(self.game_id, self.gm,
                                                  max(0, head - 2), "red team"))
            return
        actor = self.players[side]
        legal = service.legal_orders(self.game_id, actor, side)
        self._probe(state, side)
        owes = state.pending is not None and state.pending.side == side
        roll = rnd.random()
        if owes and roll >= 0.3 and rnd.random() < 0.5:
            self._deadline_differential()  # as if its deadline passed now (the game goes on)
        if last and rnd.random() < 0.3:
            m.results.append(self._submit(side, "resign"))
        elif roll < 0.03 and self.rules.standing_policies():
            policy = rnd.choice(self.rules.standing_policies())
            m.results.append(self._submit(side, f"standing {policy.kind} {policy.policy}"))
        elif roll < 0.05:
            result = service.undo(self.game_id, actor)
            if result.ok:
                m.results.append(result)
        elif roll < 0.06:
            head = service.info(self.game_id).head_seq
            if head > 2:
                m.results.append(service.rollback(self.game_id, self.gm,
                                                  rnd.randint(max(0, head - 4), head - 1),
                                                  "red team"))
        elif roll < 0.08 or (roll < 0.3 and owes):
            self._deadline()  # often when a decision is owed: its default is played
        elif legal:
            m.results.append(self._submit(side, self._choose(state, legal)))

    def _submit(self, side: str, text: str) -> SubmitResult:
        """``side``'s order, given as its player plays: by mail (now and then, for the side
        seated by mail: through the gateway, whose reply the mail scan reads) or directly."""
        if self.rnd.random() < 0.5:
            head = self.service.info(self.game_id).head_seq
            if send_order(self.moment, side, text):
                return self.service.updates(self.game_id, head)
        return self.service.submit(self.game_id, self.players[side], text)

    def _choose(self, state: Any, legal: list[str]) -> str:
        """Mostly action; in a set-up its placements first; 'done' now and then."""
        rnd = self.rnd
        action = [o for o in legal if o not in ("done", "pass", "end")]
        ends = [o for o in legal if o in ("done", "pass", "end")]
        setting_up = getattr(state, "phase", "") == "setup"
        if setting_up:
            places = [o for o in action if o.split()[0] in ("place", "hide", "mine")]
            if places and (rnd.random() < 0.95 or not ends):
                return rnd.choice(places)
        if action and (rnd.random() < 0.75 or not ends):
            return rnd.choice(action)
        return ends[0] if ends else rnd.choice(legal)

    def _deadline(self) -> None:
        self._deadline_differential()
        service, m = self.service, self.moment
        service.set_deadline(self.game_id, self.gm, 60)
        self.clock.now += 61
        notices = service.tick()
        m.notes.setdefault("deadline_notices", []).extend(
            (n.audience, n.text) for n in notices if n.audience in m.readers)
        service.set_deadline(self.game_id, self.gm, None)

    def _deadline_differential(self) -> None:
        """The deadline about to pass, on two copies of the game that differ only in the
        acting side's standing order for one kind of decision (set in one, cleared in the
        other: its secret): when both play the same order, what the public and the other
        sides are told of it (the tick's notices, the action as their log shows it) must
        be the same — it may not say whether a standing order or the default chose it."""
        state, rules, rnd = self.moment.state(), self.rules, self.rnd
        side = rules.acting_side(state)
        kinds = sorted({policy.kind for policy in rules.standing_policies()})
        if side is None or not kinds:
            return
        pending = state.pending if state.pending is not None and state.pending.side == side \
            else None
        kind = pending.kind if pending is not None and pending.kind in kinds \
            else rnd.choice(kinds)
        policy = rnd.choice([p.policy for p in rules.policies_for(kind)])
        told = [self._expire_copy(n, side, kind, chosen)
                for n, chosen in enumerate((policy, None))]
        if told[0] is None or told[1] is None or told[0][0] != told[1][0]:
            return  # another order was played (the standing order chose it): no pair
        for audience in told[0][1]:
            x, y = told[0][1][audience], told[1][1][audience]
            self.tally.count("differential: deadline notices", x != y,
                             f"{rules.name}: {audience} told {x} | {y}")

    def _expire_copy(self, number: int, side: str, kind: str, policy: str | None
                     ) -> tuple[str, dict[str, list[str]]] | None:
        """Let the deadline pass on a copy of the game with ``side``'s standing order for
        ``kind`` set to ``policy``: (the order played, what each other audience read)."""
        path = self.folder / f"deadline-{self.number}-{number}.db"
        path.unlink(missing_ok=True)
        source, target = sqlite3.connect(self.db), sqlite3.connect(path)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        clock = Clock()
        clock.now = self.clock.now
        copy = GameService(Store(path, synchronous="OFF"), clock=clock)
        copy.instance = self.service.instance  # the deadline lease is this table's
        try:
            if not copy.override(self.game_id, self.gm, {
                    "op": "set-standing", "side": side, "kind": kind, "policy": policy},
                    "red team").ok:
                return None
            copy.set_deadline(self.game_id, self.gm, 60)
            clock.now += 61
            head = copy.info(self.game_id).head_seq
            notices = copy.tick()
            played = copy.store.actions(self.game_id, after=head)
            if not played:
                return None
            readers = [r for r in self.moment.readers if r != side]
            told: dict[str, list[str]] = {r: [n.text for n in notices if n.audience == r]
                                          for r in readers}
            for reader in readers:
                entries = copy.log(self.game_id, self.moment.actors[reader], len(played))
                told[reader] += [e.summary() for e in entries]
            return "\n".join(str(a["text"]) for a in played), told
        finally:
            copy.store.close()
            path.unlink(missing_ok=True)

    def _probe(self, state: Any, side: str) -> None:
        """Orders the acting side might try against the other side's secrets, applied to a
        copy (never stored): their refusals are scanned like every other output."""
        probes: list[str] = []
        if self.rules.name == "tanks":
            mine = [u for u in state.units if u.side == side and u.status == "on"]
            theirs = [u for u in state.units if u.side != side and u.status == "on"
                      and (u.hidden or u.concealed)]
            if mine and theirs:
                unit, target = self.rnd.choice(mine), self.rnd.choice(theirs)
                probes += [f"fire {unit.id} at {target.id}", f"move {unit.id} {target.hex}",
                           f"assault {unit.id} at {target.id}"]
        probes.append("standing")  # an incomplete order: the refusal lists the forms
        dice = CommittedDice(self.rnd.randbytes(32), "probe")
        for text in probes:
            try:
                self.rules.apply(state, side, self.rules.parse(text), dice)
            except RuleError as error:
                self.moment.notes.setdefault("refusals", []).append(
                    (side, text, str(error), list(error.legal)))


def play_and_scan(folder: Path, game: str, scenario: str, actions: int, seed: int,
                  tally: Tally, number: int = 0) -> None:
    rnd = random.Random(seed)
    table = Table(folder, game, scenario, rnd, number, tally)
    m = table.moment
    scan(m, tally)
    for step in range(1, actions + 1):
        m.step = step
        m.results = []
        table.step(last=step > actions * 0.8)
        scan(m, tally)
        if table.finished() and table.reopened:
            break
    table.service.store.close()


# ---- differential probes ----------------------------------------------------------------------

def _dice(rnd: random.Random) -> CommittedDice:
    return CommittedDice(b"\x11" * 32, "differential", start_index=rnd.randrange(1000))


def _setup_orders(rules: Any, scenario: str, rnd: random.Random) -> tuple[list[tuple[str, str]],
                                                                        str | None]:
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
    # replay to the changed order and pick another hex for the same unit or mine
    state = rules.setup(scenario)
    index = 0
    for i, (side, order) in enumerate(orders):
        if i == target:
            legal = rules.legal_orders(state, side)
            same = [o for o in legal if o.split()[0] == verb and o != order and (
                verb == "mine" or o.split()[1] == rest[0])]
            if not same:
                return None
            changed = list(orders)
            changed[target] = (side, rnd.choice(same))
            return changed
        outcome = rules.apply(state, side, rules.parse(order),
                              CommittedDice(b"\x22" * 32, "setup", start_index=index))
        index += len(outcome.rolls)
        state = outcome.state
    return None


def _build(rules: Any, scenario: str, orders: list[tuple[str, str]]) -> Any | None:
    state = rules.setup(scenario)
    index = 0
    for side, order in orders:
        try:
            outcome = rules.apply(state, side, rules.parse(order),
                                  CommittedDice(b"\x22" * 32, "setup", start_index=index))
        except RuleError:
            return None
        index += len(outcome.rolls)
        state = outcome.state
    return state


def _seen(rules: Any, state: Any, audience: str) -> str:
    view = rules.view(state, audience).model_dump(mode="json")
    for key in ("commitments", "salts", "revealed_secrets"):
        view.pop(key, None)
    return repr(view)


def differential(game: str, scenario: str, steps: int, seed: int, tally: Tally) -> None:
    """One pair of games differing only in a secret, compared until the first reveal."""
    rules = load_game(game)
    rnd = random.Random(seed)
    orders, secret_side = _setup_orders(rules, scenario, rnd)
    if secret_side is None:
        return
    changed = _variant(rules, scenario, orders, secret_side, rnd)
    if changed is None:
        return
    a, b = _build(rules, scenario, orders), _build(rules, scenario, changed)
    if a is None or b is None:
        return
    figure = f"differential: {game} secret set-up"
    others = [PUBLIC, *(s for s in rules.sides if s != secret_side)]
    probes = sorted({u.hex for u in [*a.units, *b.units] if u.side == secret_side
                     and u.status == "on" and (u.hidden or u.concealed) and u.hex}
                    | {h for s in (a, b) for h in s.mines.get(secret_side, [])})

    def compare(what: str, x: Any, y: Any) -> None:
        tally.count(figure, x != y, f"{scenario}: {what} differs: {str(x)[:120]} | "
                    f"{str(y)[:120]}")

    index = 0
    for step in range(steps):
        for audience in others:
            compare(f"the {audience} view", _seen(rules, a, audience),
                    _seen(rules, b, audience))
        side = rules.acting_side(a)
        if side is None or side != rules.acting_side(b):
            break
        if side != secret_side:
            compare(f"{side}'s legal orders", rules.legal_orders(a, side),
                    rules.legal_orders(b, side))
            mover = next((u.id for u in a.units if u.side == side and u.status == "on"), None)
            for h in probes[:4] if mover is not None else []:
                text = f"move {mover} {h}"
                compare(f"{side}'s refusal of {text}", _refusal(rules, a, side, text),
                        _refusal(rules, b, side, text))
        legal = rules.legal_orders(a, side)
        if not legal:
            break
        action = [o for o in legal if o != "done"]
        order = (rnd.choice(action) if action and rnd.random() < 0.7 else
                 "done" if "done" in legal else rnd.choice(legal))
        dice_a = CommittedDice(b"\x33" * 32, "diff", start_index=index)
        dice_b = CommittedDice(b"\x33" * 32, "diff", start_index=index)
        try:
            out_a = rules.apply(a, side, rules.parse(order), dice_a)
            out_b = rules.apply(b, side, rules.parse(order), dice_b)
        except RuleError:
            break
        if any(e.kind in REVEALS for e in [*out_a.events, *out_b.events]):
            break  # from here on the secret is (partly) known: the games may differ
        for audience in others:
            x = [e.text for e in visible_to(out_a.events, audience)]
            y = [e.text for e in visible_to(out_b.events, audience)]
            tally.count(figure, x != y, f"{scenario} step {step}: {audience} told {x} | {y}")
        index += len(out_a.rolls)
        a, b = out_a.state, out_b.state


def _refusal(rules: Any, state: Any, side: str, text: str) -> str:
    try:
        rules.apply(state, side, rules.parse(text), CommittedDice(b"\x44" * 32, "probe"))
    except RuleError as error:
        return str(error)
    return "accepted"


def run_leaks(tally: Tally, *, quick: bool, seed: int, out: Callable[[str], None]) -> None:
    actions = 40 if quick else 400
    games_each = 1 if quick else 3
    with tempfile.TemporaryDirectory(prefix="umpire-redteam-") as folder:
        for game in GAMES:
            for scenario in load_game(game).scenarios():
                started = time.monotonic()
                for number in range(games_each):
                    try:
                        play_and_scan(Path(folder), game, scenario, actions,
                                      seed + number, tally, number)
                    except Exception as error:  # e.g. a game that no longer loads
                        tally.count("leak scan: games played", True,
                                    f"{game}/{scenario}: {type(error).__name__}: {error}")
                    else:
                        tally.count("leak scan: games played", False)
                out(f"  scanned {game}/{scenario} ({time.monotonic() - started:.0f} s)")
    started = time.monotonic()
    for scenario in load_game("tanks").scenarios():
        for number in range(2 if quick else 12):
            differential("tanks", scenario, 12 if quick else 60, seed + number, tally)
    out(f"  differential probes ({time.monotonic() - started:.0f} s)")
