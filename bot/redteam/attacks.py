"""Attacks on permissions, the dice and the records, each counted (tried, failed).

* **Permissions**: strangers, players acting for the other side, players using GM tools,
  anyone reading the seed or another side's view: every attempt must be refused.
* **Dice**: a finished game's seed (public then) must not predict the dice of the game a
  GM reopens; nobody reads the seed before the end; no entropy after the start.
* **Records**: a die marked forced without a logged override, a die changed, an event
  text changed — ``verify`` must refuse each forged record.
* **Idempotency**: another actor's key returns nothing of the first result; the same key
  with another request is refused.
"""

from __future__ import annotations

import copy
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adjudicator.kernel.dice import derive_values, effective_seed
from bot.records import export_lines, verify
from bot.redteam.leaks import Tally
from bot.service import Actor, GameService, ServiceError, SubmitResult
from bot.store import Store

GM = Actor.discord("700")
STRANGER = Actor.discord("799")


class Game:
    """A game of ``name`` through the service, played on by random legal orders."""

    def __init__(self, folder: Path, name: str, scenario: str | None, rnd: random.Random,
                 tag: str) -> None:
        self.service = GameService(Store(folder / f"{tag}.db", synchronous="OFF"))
        self.rnd = rnd
        info = self.service.create_game(GM, name, scenario)
        self.id = info.id
        self.rules = self.service.rules(self.id)
        self.players = {str(side): Actor.discord(str(701 + n))
                        for n, side in enumerate(self.rules.sides)}
        for side, actor in self.players.items():
            self.service.seat(self.id, GM, side, actor)
        self.service.start(self.id, GM)

    def acting(self) -> str | None:
        side = self.rules.acting_side(self.service.load_state(self.id))
        return None if side is None else str(side)

    def play(self, orders: int) -> list[SubmitResult]:
        results = []
        for _ in range(orders):
            side = self.acting()
            if side is None:
                break
            legal = self.service.legal_orders(self.id, self.players[side], side)
            if not legal:
                break
            action = [o for o in legal if o not in ("done", "pass")]
            order = (self.rnd.choice(action) if action and self.rnd.random() < 0.8
                     else self.rnd.choice(legal))
            results.append(self.service.submit(self.id, self.players[side], order))
        return results

    def rolls(self) -> list[dict[str, Any]]:
        return [roll for row in self.service.store.actions(self.id, active_only=True)
                for roll in json.loads(row["rolls"])]

    def close(self) -> None:
        self.service.store.close()


def _accepted(call: Callable[[], Any]) -> tuple[bool, str]:
    try:
        result = call()
    except (ServiceError, ValueError) as error:
        return False, str(error)
    if isinstance(result, SubmitResult):
        return result.ok, str(result.error)
    return True, repr(result)[:120]


def permissions(folder: Path, tally: Tally, rnd: random.Random) -> None:
    for name in ("tanks", "stalingrad"):
        game = Game(folder, name, None, rnd, f"perm-{name}")
        game.play(3)
        _try_permissions(game, name, tally)
        game.close()


def _try_permissions(game: Game, name: str, tally: Tally) -> None:
    s, gid = game.service, game.id
    acting = game.acting() or game.rules.sides[0]
    other = next(side for side in game.rules.sides if side != acting)
    order = (s.legal_orders(gid, game.players[acting], acting) or ["done"])[0]
    player, outsider = game.players[other], STRANGER
    attempts: list[tuple[str, Callable[[], Any]]] = [
        ("a stranger's order", lambda: s.submit(gid, outsider, order)),
        ("a player's order for the other side",
         lambda: s.submit(gid, player, order, side=acting)),
        ("a player's GM override", lambda: s.override(
            gid, player, {"op": "force-dice", "values": [6, 6]}, "mine")),
        ("a player's rollback", lambda: s.rollback(gid, player, 0, "mine")),
        ("a player's pause", lambda: s.pause(gid, player, "mine")),
        ("a player's deadline", lambda: s.set_deadline(gid, player, 60)),
        ("a player's rollback preview", lambda: s.rollback_preview(gid, player, 0)),
        ("a player's roll-forward", lambda: s.roll_forward(gid, player)),
        ("a player seating a stranger", lambda: s.seat(gid, player, other, outsider)),
        ("a stranger seating himself GM",
         lambda: s.seat(gid, outsider, None, outsider, role="gm")),
        ("a player unseating the other", lambda: s.unseat(gid, player, acting, "mine")),
        ("a player's audit trail", lambda: s.audit(gid, player)),
        ("the GM view for a player", lambda: s.view(gid, player, "gm")),
        ("the other side's view for a player", lambda: s.view(gid, player, acting)),
        ("the other side's view for a stranger", lambda: s.view(gid, outsider, acting)),
        ("the other side's legal orders", lambda: s.legal_orders(gid, player, acting)),
        ("a stranger's undo", lambda: s.undo(gid, outsider)),
        ("the seed for the GM before the end", lambda: s.reveal_seed(gid, GM)),
        ("the seed for a player before the end", lambda: s.reveal_seed(gid, player)),
        ("entropy after the start", lambda: s.add_entropy(gid, player, "late")),
        ("a stranger's log as a side", lambda: s.log(gid, outsider, 5, audience=acting)),
    ]
    for what, call in attempts:
        accepted, said = _accepted(call)
        tally.count("permissions: refused", accepted, f"{name}: {what} accepted: {said}")


def gm_who_plays(folder: Path, tally: Tally, rnd: random.Random) -> None:
    """The admin attack (issue 27.3): a player who is also a GM of the game — seated as GM
    and as a side, as ``/game new side:`` does, or a Discord server administrator or GM
    role holder who plays — may read and do, during play, only what a player may: every
    GM read and tool is refused, and the record they get is their side's view."""
    from types import SimpleNamespace

    from bot.discord.permissions import is_gm

    for name in ("tanks", "stalingrad"):
        game = Game(folder, name, None, rnd, f"gm-plays-{name}")
        s, gid = game.service, game.id
        own, other = game.rules.sides
        both = Actor.discord("770")
        s.unseat(gid, GM, own, "the GM takes this side")
        s.seat(gid, GM, own, both)
        s.seat(gid, GM, None, both, role="gm")
        game.players[own] = both
        game.play(3)
        _try_gm_who_plays(game, name, both, other, tally)
        game.close()
    admin = SimpleNamespace(user=SimpleNamespace(id=770), guild_id=1,
                            permissions=SimpleNamespace(administrator=True))
    tally.count("permissions: a server admin who plays", is_gm(
        admin, seated_gm=False, plays=True),  # type: ignore[arg-type]
        "Discord counts a server administrator who plays as the game's GM")


def _try_gm_who_plays(game: Game, name: str, both: Actor, other: str, tally: Tally) -> None:
    s, gid = game.service, game.id
    theirs = (s.legal_orders(gid, GM, other) or ["pass"])[0]
    attempts: list[tuple[str, Callable[[], Any]]] = [
        ("the GM view", lambda: s.view(gid, both, "gm")),
        ("the other side's view", lambda: s.view(gid, both, other)),
        ("the GM's log", lambda: s.log(gid, both, 30, audience="gm")),
        ("the other side's log", lambda: s.log(gid, both, 30, audience=other)),
        ("the other side's legal orders", lambda: s.legal_orders(gid, both, other)),
        ("an order for the other side", lambda: s.submit(gid, both, theirs, side=other)),
        ("a GM override", lambda: s.override(
            gid, both, {"op": "force-dice", "values": [6, 6]}, "mine")),
        ("a rollback preview", lambda: s.rollback_preview(gid, both, 0)),
        ("a rollback", lambda: s.rollback(gid, both, 0, "mine")),
        ("a roll-forward", lambda: s.roll_forward(gid, both)),
        ("a pause", lambda: s.pause(gid, both, "mine")),
        ("a deadline", lambda: s.set_deadline(gid, both, 60)),
        ("the other side's seat secret", lambda: s.set_seat_secret(
            gid, both, "mine", side=other)),
        ("unseating the other side", lambda: s.unseat(gid, both, other, "mine")),
        ("seating himself for the other side", lambda: s.seat(gid, both, other, both)),
        ("the audit trail", lambda: s.audit(gid, both)),
        ("the full record", lambda: _full_record(s.export(gid, both))),
    ]
    for what, call in attempts:
        accepted, said = _accepted(call)
        tally.count("permissions: a GM who plays, during play", accepted,
                    f"{name}: {what} accepted: {said}")


def _full_record(record: Any) -> Any:
    """The record, refused (as an error) when it is the full one."""
    if record.full:
        return record
    raise ServiceError(f"the {record.audience} view of the record")


def reopened_dice(folder: Path, tally: Tally, rnd: random.Random, games: int) -> None:
    """A game ends (its seed public), a GM reopens it: the old seed must not predict it."""
    for number in range(games):
        name = ("tanks", "stalingrad")[number % 2]
        game = Game(folder, name, None, rnd, f"dice-{number}")
        game.play(rnd.randint(2, 12))
        side = game.acting()
        if side is None:
            game.close()
            continue
        head = game.service.info(game.id).head_seq
        game.service.submit(game.id, game.players[side], "resign")
        seed = game.service.reveal_seed(game.id, STRANGER)
        entropy = export_lines(game.service.store, game.id)[0]["entropy"]
        game.service.rollback(game.id, GM, head, "red team reopens")
        before = len(game.rolls())
        for _ in range(40):
            game.play(4)
            if len(game.rolls()) - before >= 4 or game.acting() is None:
                break
        new = game.rolls()[before:]
        mixed = effective_seed(bytes.fromhex(seed), entropy)
        hits = sum(tuple(r["values"]) == derive_values(
            mixed, game.id, int(r["branch"]), int(r["index"]), str(r["label"]),
            len(r["values"]), int(r.get("sides", 6))) for r in new if not r.get("forced"))
        if new:
            tally.count("dice: rolls foretold after a reopening", hits == len(new),
                        f"{name}: all {len(new)} rolls after the reopening foretold")
        game.close()


def forged_records(folder: Path, tally: Tally, rnd: random.Random, games: int) -> None:
    for number in range(games):
        name = ("tanks", "stalingrad")[number % 2]
        game = Game(folder, name, None, rnd, f"record-{number}")
        if number % 3 == 0:
            game.service.override(game.id, GM, {"op": "force-dice", "values": [1, 2]}, "test")
        game.play(rnd.randint(10, 30))
        lines = export_lines(game.service.store, game.id)
        seed = bytes(game.service.store.game(game.id)["server_seed"]).hex()  # type: ignore[index]
        if not verify(lines, seed).ok:  # the untouched record must verify
            tally.count("records: untouched records verify", True, f"{name}: "
                        + "; ".join(verify(lines, seed).problems)[:200])
            game.close()
            continue
        tally.count("records: untouched records verify", False)
        rolled = [i for i, item in enumerate(lines) if i and item.get("rolls")]
        for index in rolled[:6]:
            forged = copy.deepcopy(lines)
            roll = forged[index]["rolls"][0]
            every = list(range(len(roll["values"])))
            # "The GM forced these" — unless the GM did (its override's dice): no forgery.
            if sorted(roll.get("forced") or []) != every:
                roll["forced"] = every
                tally.count("records: dice marked forced without an override",
                            verify(forged, seed).ok, f"{name}: action {forged[index]['seq']}")
            tampered = copy.deepcopy(lines)
            roll = tampered[index]["rolls"][0]
            free = [p for p in range(len(roll["values"])) if p not in (roll.get("forced") or [])]
            if free:
                p = free[0]
                roll["values"][p] = roll["values"][p] % int(roll.get("sides", 6)) + 1
                tally.count("records: a die changed", verify(tampered, seed).ok,
                            f"{name}: action {tampered[index]['seq']}")
        texts = [i for i, item in enumerate(lines) if i and item.get("events")]
        for index in texts[:6]:
            forged = copy.deepcopy(lines)
            event = forged[index]["events"][-1]
            event["text"] = event["text"] + " (and the other side surrenders)"
            tally.count("records: an event text changed", verify(forged, seed).ok,
                        f"{name}: action {forged[index]['seq']}")
        game.close()


def idempotency(folder: Path, tally: Tally, rnd: random.Random) -> None:
    game = Game(folder, "tanks", None, rnd, "keys")
    s, gid = game.service, game.id
    side = game.acting()
    assert side is not None
    other = next(x for x in game.rules.sides if x != side)
    legal = s.legal_orders(gid, game.players[side], side)
    first = s.submit(gid, game.players[side], legal[0], idempotency_key="shared")
    assert first.ok, first.error
    stolen = s.submit(gid, game.players[other], legal[0], idempotency_key="shared")
    tally.count("idempotency: another actor's key", stolen.duplicate or (
        stolen.seqs == first.seqs and bool(first.seqs)), "the other side got the first result")
    again = s.submit(gid, game.players[side], legal[0], idempotency_key="shared")
    tally.count("idempotency: the same request again", not again.duplicate
                or again.seqs != first.seqs, "not the first result")
    changed = s.submit(gid, game.players[side], legal[0] + "\n" + legal[0],
                       idempotency_key="shared")
    tally.count("idempotency: a used key with another order", changed.status != "refused"
                or changed.error_rule != "idempotency", str(changed.error))
    count = s.store.count_actions(gid)
    forced = s.override(gid, GM, {"op": "force-dice", "values": [3]}, "t",
                        idempotency_key="shared")
    tally.count("idempotency: the GM's override with a player's key",
                not forced.ok or s.store.count_actions(gid) != count + 1, "dropped")
    game.close()


def run_attacks(tally: Tally, *, quick: bool, seed: int, out: Callable[[str], None]) -> None:
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="umpire-attacks-") as name:
        folder = Path(name)
        permissions(folder, tally, rnd)
        gm_who_plays(folder, tally, rnd)
        out("  permissions tried")
        reopened_dice(folder, tally, rnd, 4 if quick else 20)
        out("  dice attacked")
        forged_records(folder, tally, rnd, 3 if quick else 12)
        idempotency(folder, tally, rnd)
        out("  records forged")
