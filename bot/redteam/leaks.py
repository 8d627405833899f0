"""Leak scans: random games of every scenario, every output scanned for secrets.

Two methods, each counting what it tried and how often it failed:

* **Token scan.** Games are played through the service by random players (legal orders,
  secret set-ups, standing orders, undos, deadlines, rollbacks, resignations), and after
  every action each registered output producer (:mod:`bot.redteam.outputs`, and the email
  gateway's mail, :mod:`bot.redteam.mail`) is run. In every output an audience reads, the
  scan looks for the secrets that audience may not know at that moment — another side's
  hidden and face-down units, unfound mines, standing orders, secret salts, email
  addresses and seat secrets, and the dice seed before the end (for the GM too).
  Besides the secrets with their place (a unit and its hex), the narrative outputs are
  scanned for another side's hidden hex, unfound mine's hex or face-down type alone
  (:func:`lone_tokens`).
* **Deadline differential**: the deadline passes on two copies of the game that differ only
  in the acting side's standing order; what the others are told must be equal.

The main check is the secret differential of :mod:`bot.redteam.differential` (two worlds
differing in one secret of the set-up, every output compared).
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
from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.registry import load_game
from bot.redteam.outputs import ORDER_SENDERS, PRODUCERS, Moment
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

@dataclass(frozen=True)
class Needle:
    """A secret's pattern and the literal texts every match of it holds: a text that lacks
    one of them cannot match, so it is passed over without running the pattern (the scan
    looks for every secret in every output, and most outputs hold none)."""

    pattern: re.Pattern[str]
    literals: tuple[str, ...]

    def search(self, text: str) -> re.Match[str] | None:
        if not all(literal in text for literal in self.literals):
            return None
        return self.pattern.search(text)


def _word(token: str) -> str:
    return r"(?<![\w-])" + re.escape(token) + r"(?![\w-])"


def _pattern(token: str) -> Needle:
    """A token as a whole word; ``ID@HEX`` (a unit in a hex): the two close together."""
    if "@" in token:
        unit, where = token.split("@")
        near = r"[^\n]{0,60}?"
        return Needle(re.compile(f"{_word(unit)}{near}{_word(where)}"
                                 f"|{_word(where)}{near}{_word(unit)}"), (unit, where))
    return Needle(re.compile(_word(token)), (token,))


def _attributed(side: str, token: str, sides: list[str]) -> Needle:
    """``token`` said of ``side``: in one line of text (``soviet: standing order ...``,
    ``soviet takes back: ...``) with no other side named in between, or in one JSON record
    whose ``side`` is ``side``."""
    others = "|".join(re.escape(s) for s in sides if s != side) or "(?!)"
    gap = f'(?:(?!{others})[^\\n{{}}";])'
    return Needle(re.compile(f'{_word(side)}{gap}{{0,40}}?{_word(token)}'
                             f'|"side": "{re.escape(side)}"[^\\n{{}}]{{0,40}}?{_word(token)}'),
                  (side, token))


def _standing_forms(kind: str, policy: str) -> list[str]:
    """How a standing order reads: as typed, and as its event says it."""
    return [f"standing {kind} {policy}", f"standing order {kind} = {policy}"]


def _standing_patterns(side: str, kind: str, policy: str, sides: list[str]
                       ) -> list[Needle]:
    """Where another reader may not find ``side``'s standing order ``kind`` = ``policy``
    (the first two: whoever the reader is; the others: unless it holds the same order).

    The text of a policy is no secret: the rules list every policy, every side reads
    them in its help and in its own default answers (``'standing voluntary ask' to be
    asked``), and both sides may hold the same one. The secret is whose it is: the policy
    said of ``side`` (:func:`_attributed`), or shown as the reader's own — marked so in a
    list of policies, or in a view's ``standing``."""
    return [*(_attributed(side, form, sides) for form in _standing_forms(kind, policy)),
            Needle(re.compile(_word(f"standing {kind} {policy}") + re.escape(" (yours now)")),
                   (f"standing {kind} {policy} (yours now)",)),
            Needle(re.compile(r'"standing": \{[^{}]*' + re.escape(f'"{kind}": "{policy}"')),
                   ('"standing": {', f'"{kind}": "{policy}"'))]


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


def secret_tokens(m: Moment) -> dict[str, list[tuple[str, Needle]]]:
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
    m.notes["own_secrets"] = own_secrets(rules, state)
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
    out: dict[str, list[tuple[str, Needle]]] = {}
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


def own_secrets(rules: Any, state: Any) -> dict[str, bool]:
    """side -> whether it holds secrets of its own in ``state`` (its own picture may show
    them in the secret colours): a standing order, an unrevealed secret set-up, and in
    Stalin's Tanks a hidden or face-down unit on the map or a mine not yet found."""
    secrets = getattr(state, "secrets", {})
    return {side: bool(state.standing.get(side)) or bool(
        side in secrets and secrets[side].salt and not secrets[side].revealed) or (
        rules.name == "tanks" and (
            any(u.side == side and u.status == "on" and (u.hidden or u.concealed)
                for u in state.units)
            or any(h not in state.known_mines for h in state.mines.get(side, []))))
        for side in rules.sides}


#: Outputs that tell what happened in words (not the lists of what may be done, nor the
#: board): there a hidden unit's hex or a face-down unit's type alone is a leak.
NARRATIVE = frozenset({"notices", "log", "export", "GIF captions", "emails"})
_HEX = re.compile(r"(?<![\w-])\d{4}(?![\w-])")


def lone_tokens(m: Moment) -> dict[str, list[tuple[str, Needle]]]:
    """audience -> (what, pattern) of the secrets it may not read *alone* in words (Stalin's
    Tanks, before the end): another side's hidden unit's hex or unfound mine's hex with no
    unit named ("scouts report movement near 0101", "sappers were seen digging at 1213"),
    and a face-down unit's type ("a face-down german unit (Panth.)"). A hex is excused where
    the reader knows of it otherwise: a unit it sees there, a known mine, or an order given
    in the open naming it; a type where the reader sees a unit of it face up; and neither
    for a unit the public has seen where it is (revealed or turned face up there, then
    hidden or turned face down again by a rollback: the telling stays in the log)."""
    if m.rules.name != "tanks":
        return {}
    state = m.state()
    row = m.service.store.game(m.game_id)
    if row is None or row["seed_revealed"] or m.service.store.past_seeds(m.game_id):
        return {}
    public, shown_mines = _public_places(m, state)
    open_hexes: set[str] = set(state.known_mines) | shown_mines
    for action in m.service.store.actions(m.game_id):
        if action["kind"] != "order" or not action["text"]:
            continue
        if (loads(action["payload"], None) or {}).get("private"):
            continue
        for line in str(action["text"]).splitlines():
            if not m.rules.is_secret_text(" ".join(line.split())):
                open_hexes.update(_HEX.findall(line))
    types = m.rules.data.types
    out: dict[str, list[tuple[str, Needle]]] = {}
    for audience in m.readers:
        view: Any = m.service.view(m.game_id, m.actors[audience], audience)
        seen_hexes = open_hexes | {u.hex for u in view.units if u.hex}
        seen_types = {word for u in view.units if not u.concealed
                      for word in (u.type, u.label)}
        found: list[tuple[str, str]] = []
        for unit in state.units:
            if (unit.side == audience or unit.status != "on" or not unit.hex
                    or f"{unit.id}@{unit.hex}" in public):
                continue
            if unit.hidden and unit.hex not in seen_hexes:
                found.append((f"{unit.side}'s hidden unit's hex {unit.hex}", unit.hex))
            kind = types.get(unit.type) if unit.concealed else None
            if kind is not None and not {unit.type, kind.label} & seen_types:
                found += [(f"{unit.side}'s face-down unit's type {word}", word)
                          for word in (kind.label, *kind.aliases)]
        for side, hexes in state.mines.items():
            for h in hexes:
                if side != audience and h not in seen_hexes:
                    found.append((f"{side}'s mine's hex {h}", h))
        out[audience] = [(what, _pattern(token)) for what, token in found]
    return out


def scan(m: Moment, tally: Tally) -> None:
    """Run every producer due now and count each output as one try of its figure. In the
    narrative outputs (:data:`NARRATIVE`) the secrets alone are looked for too
    (:func:`lone_tokens`)."""
    secrets = secret_tokens(m)
    lone = lone_tokens(m)
    narrative = {audience: secrets.get(audience, []) + lone.get(audience, [])
                 for audience in {*secrets, *lone}}
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
            looked = narrative if name in NARRATIVE else secrets
            found = [what for what, pattern in looked.get(output.audience, [])
                     if pattern.search(output.text)]
            tally.count(figure, bool(found),
                        f"{output.audience} reads {found[0]}: "
                        f"{_around(output.text, looked, output.audience)}" if found else "")


def _around(text: str, secrets: dict[str, list[tuple[str, Needle]]],
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
        # the game's dice seed (and its id, which they hash) drawn from the run's seed:
        # a red-team run is reproducible
        self.service = GameService(Store(self.db, synchronous="OFF"), clock=self.clock,
                                   seed_source=rnd.randbytes)
        self.rnd = rnd
        self.gm = Actor.discord("900")
        self.stranger = Actor.discord("999")
        rules = load_game(game)
        first, second = rules.sides
        self.players = {first: Actor.discord("901"), second: Actor.mail(f"{second}@red.team")}
        info = self.service.create_game(self.gm, game, scenario,
                                        game_id=rnd.randbytes(6).hex())  # its dice's id
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
            if any(send(self.moment, side, text) for send in ORDER_SENDERS):
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
            return  # another order was played, or a question asked in one world alone: no pair
        for audience in told[0][1]:
            x, y = told[0][1][audience], told[1][1][audience]
            a, b = "\n".join(x), "\n".join(y)
            at = next((i for i, (p, q) in enumerate(zip(a, b, strict=False)) if p != q),
                      min(len(a), len(b)))  # where the two tellings part
            self.tally.count("differential: deadline notices", x != y,
                             f"{rules.name}: {audience} told …{a[max(0, at - 60):at + 80]} | "
                             f"…{b[max(0, at - 60):at + 80]}")

    def _expire_copy(self, number: int, side: str, kind: str, policy: str | None
                     ) -> tuple[str, dict[str, list[str]]] | None:
        """Let the deadline pass on a copy of the game with ``side``'s standing order for
        ``kind`` set to ``policy``: (the orders played and the decision then owed, what each
        other audience read).

        The decision owed after the tick is part of what was played: a standing order that
        answers without a question (TP:S ``advantage never``: a later roll against the
        holder within the same order is not offered, docs/rulings.md) plays on where the
        default asks, and that a side is asked is public (the game waits for it). Worlds
        that part there played differently; they are not a pair."""
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
        copy = GameService(Store(path, synchronous="OFF"), clock=clock,
                           seed_source=lambda n: b"\x5a" * n)  # both copies alike
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
            # every order played, a standing order's (or default's) answers within the
            # action included, and who is asked what next: where they differ, the worlds
            # played different orders
            owed = copy.view(self.game_id, self.stranger, PUBLIC)
            asked = owed.pending.model_dump_json() if owed.pending is not None else None
            return "\n".join([*(f"{a['text']} {a['applied']}" for a in played),
                              f"then {owed.to_act} to act, asked {asked}"]), told
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


def run_leaks(tally: Tally, *, quick: bool, seed: int, out: Callable[[str], None]) -> None:
    actions = 32 if quick else 400  # (the differential, the main check, runs before)
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
