"""Games, seats and administration: create a game, seat and unseat players and GMs, seat
secrets, dice entropy, start, deadlines' settings, the game's status (:class:`GameInfo`) and
the games a person or a frontend's binding holds; the dice seed once the game is over, and
the audit trail of who read it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from adjudicator.kernel.dice import commitment
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.game import Game
from adjudicator.registry import UnknownGame
from bot import deadlines, seat_secrets
from bot.history import initial_state
from bot.messages import contact_labels, redact_label
from bot.records import entropy_digest
from bot.service.base import ServiceBase
from bot.service.models import (
    Actor,
    GameInfo,
    InvalidOperation,
    PermissionDenied,
    SeatInfo,
)
from bot.service.text import MAX_ID, check_text
from bot.store import Snapshot


class Seats(ServiceBase):
    # ---- games, seats, start ----------------------------------------------------------

    def create_game(
        self,
        creator: Actor,
        game: str,
        scenario: str | None = None,
        options: Mapping[str, Any] | None = None,
        pack: Path | None = None,
        *,
        creator_role: Literal["gm", "player"] | None = "gm",
        creator_side: str | None = None,
        bindings: Mapping[str, Any] | None = None,
        game_id: str | None = None,
        creator_secret: str | None = None,
    ) -> GameInfo:
        """A new game in 'setup': seats can be filled and entropy added, then ``start``.

        ``creator_secret``: the secret of the creator's seat (see :meth:`set_seat_secret`).
        """
        check_text(creator, "your name or address", limit=MAX_ID)
        check_text([game, scenario, creator_side, game_id, str(pack) if pack else None],
                   "the game's name, scenario, side or id", limit=MAX_ID)
        check_text(options, "the game's options")
        check_text(bindings, "the game's bindings")
        check_text(creator_secret, "the seat's secret")
        try:
            rules = self._load_rules(game, str(pack) if pack else None)
        except UnknownGame as error:
            raise InvalidOperation(str(error)) from error
        if scenario is not None and scenario not in rules.scenarios():
            raise InvalidOperation(f"unknown scenario {scenario!r}; choose from "
                                   + ", ".join(rules.scenarios()))
        try:
            rules.setup(scenario, dict(options or {}))
        except (ValueError, RuleError) as error:
            raise InvalidOperation(f"cannot set up {game}: {error}") from error
        seed = self.seed_source(32)
        gid = game_id or uuid.uuid4().hex[:12]
        if self.store.game(gid) is not None:
            raise InvalidOperation(f"a game {gid!r} already exists")
        seats = []
        if creator_role is not None:
            if creator_role == "player" and creator_side not in rules.sides:
                raise InvalidOperation(f"choose a side: {', '.join(rules.sides)}")
            seats.append(self._seat_row(creator_side if creator_role == "player" else None,
                                        creator_role, creator, creator_secret))
        self.store.insert_game({
            "id": gid, "game": game, "scenario": scenario,
            "options": json.dumps(dict(options or {}), sort_keys=True),
            "pack_path": str(pack) if pack else None,
            "pack_hash": self._pack_hash(str(pack)) if pack else None, "status": "setup",
            "created": self.clock(), "created_by": creator.label,
            "bindings": json.dumps(dict(bindings or {}), sort_keys=True),
            "dice_id": gid, "server_seed": seed, "commitment": commitment(seed),
        }, seats)
        return self.info(gid)

    def _seat_row(self, side: str | None, role: str, player: Actor,
                  secret: str | None = None) -> dict[str, Any]:
        return {"side": side, "role": role, "discord_id": player.discord_id,
                "email": player.email.lower() if player.email else None,
                "password_hash": seat_secrets.hash_secret(secret) if secret else None,
                "created": self.clock()}

    def seat(self, game_id: str, by: Actor, side: str | None, player: Actor,
             role: Literal["player", "gm"] = "player", secret: str | None = None) -> GameInfo:
        """Seat ``player`` for ``side`` (a GM seats anyone; a player may take a free side);
        ``secret``: the new seat's secret, if its frontend needs one."""
        check_text([by, player, side], "the name, address or side", limit=MAX_ID)
        check_text(secret, "the seat's secret")
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        rules = self._rules_for(row)
        if role == "player" and side not in rules.sides:
            raise InvalidOperation(f"unknown side {side!r}; sides are {', '.join(rules.sides)}")
        if role == "gm":
            side = None
        is_gm = self._gm_powers(seats, by, str(row["status"]))
        taken = any(s["side"] == side and s["role"] == "player" for s in seats)
        if not is_gm:
            if role == "gm" or by != player:
                raise PermissionDenied("only the game's GM may seat other people or GMs")
            if taken or row["status"] != "setup":
                raise PermissionDenied(f"{side} is not free to take")
        if not (player.discord_id or player.email):
            raise InvalidOperation("a seat needs a Discord id or an email address")
        if any(player.holds(s) and s["side"] == side and s["role"] == role for s in seats):
            raise InvalidOperation("already seated there")
        self.store.add_seat(game_id, self._seat_row(side, role, player, secret))
        return self.info(game_id)

    # ---- seat secrets (for frontends that cannot authenticate a user, e.g. email) -----

    def set_seat_secret(self, game_id: str, by: Actor, secret: str, *,
                        side: str | None = None, holder: Actor | None = None) -> list[SeatInfo]:
        """Set or reset the secret of the player seats of ``side``, or of ``holder``'s GM
        seats. The GM only; the store keeps the secret's hash, never the secret."""
        check_text([by, holder, side], "the name, address or side", limit=MAX_ID)
        check_text(secret, "the seat's secret")
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        self._require_gm(seats, by, "set seat secrets")
        try:
            secret = seat_secrets.check_strength(secret)
        except seat_secrets.WeakSecret as error:
            raise InvalidOperation(str(error)) from error
        if side is not None:
            sides = self._rules_for(row).sides
            if side not in sides:
                raise InvalidOperation(f"unknown side {side!r}; sides are {', '.join(sides)}")
            chosen = [s for s in seats if s["role"] == "player" and s["side"] == side]
        elif holder is not None:
            chosen = [s for s in seats if s["role"] == "gm" and holder.holds(s)]
        else:
            raise InvalidOperation("name a side, or the GM whose secret to set")
        if not chosen:
            raise InvalidOperation("no such seat in game " + game_id)
        ids = {int(s["id"]) for s in chosen}
        self.store.set_seat_secret(game_id, sorted(ids), seat_secrets.hash_secret(secret))
        return [self._seat_info(s) for s in self.store.seats(game_id) if int(s["id"]) in ids]

    def unlocked_seats(self, game_id: str, actor: Actor, secret: str | None) -> list[SeatInfo]:
        """The actor's seats whose secret is ``secret`` (none without a secret)."""
        if not secret:
            return []
        check_text(actor, "your name or address", limit=MAX_ID)
        check_text(secret, "the seat's secret")
        return [self._seat_info(s) for s in self.store.seats(game_id)
                if actor.holds(s) and seat_secrets.matches(secret, s["password_hash"])]

    def seats_with_secret(self, game_id: str, secret: str) -> list[SeatInfo]:
        """Every seat whose secret is ``secret``, whoever holds it (to warn the owner of a
        secret that someone else has used)."""
        check_text(secret, "the seat's secret")
        return [self._seat_info(s) for s in self.store.seats(game_id)
                if seat_secrets.matches(secret, s["password_hash"])]

    def unseat(self, game_id: str, gm: Actor, who: str | Actor, reason: str,
               role: Literal["player", "gm"] = "player") -> GameInfo:
        """Close seats so another player can take over (``seat`` then seats the new one).

        ``who`` is a side (every player seated for it) or a player (their seats of
        ``role``). Seats are closed, never deleted: the record keeps who held which side,
        until when, who closed it and why. The last GM seat cannot be closed.
        """
        check_text([gm, who], "the name, address or side", limit=MAX_ID)
        check_text(reason, "the reason")
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        self._require_gm(seats, gm, "unseat players")
        if not reason.strip():
            raise InvalidOperation("say why (the reason is kept with the seat)")
        if isinstance(who, str):
            sides = self._rules_for(row).sides
            if who not in sides:
                raise InvalidOperation(f"unknown side {who!r}; sides are {', '.join(sides)}")
            closing = [s for s in seats if s["role"] == "player" and s["side"] == who]
            if not closing:
                raise InvalidOperation(f"no player is seated for {who}")
        else:
            closing = [s for s in seats if who.holds(s) and s["role"] == role]
            if not closing:
                raise InvalidOperation(f"that person holds no {role} seat in game {game_id}")
            if role == "gm" and len([s for s in seats if s["role"] == "gm"]) <= len(closing):
                raise InvalidOperation("a game keeps at least one GM")
        self.store.close_seats(game_id, [int(s["id"]) for s in closing], gm.label, reason,
                               self.clock())
        return self.info(game_id)

    def add_entropy(self, game_id: str, actor: Actor, text: str) -> str:
        """A seated player's contribution to the dice seed; only before the game starts.

        Commit–reveal: the text stays hidden from everyone until the game starts (only its
        digest, returned here, is published: :attr:`GameInfo.entropy`), so no one chooses
        a contribution after seeing another; the server seed was committed before any, and
        nobody sees it before the game is over (:meth:`reveal_seed`).
        """
        check_text(actor, "your name or address", limit=MAX_ID)
        check_text(text, "the entropy", limit=1000)
        row = self._row(game_id)
        if not any(actor.holds(s) for s in self.store.seats(game_id)):
            raise PermissionDenied("only seated players may add dice entropy")
        if row["status"] != "setup":
            raise InvalidOperation("entropy can be added only before the game starts")
        if not text.strip():
            raise InvalidOperation("empty entropy")
        self.store.add_entropy(game_id, actor.label, text)
        return entropy_digest(text)

    def start(self, game_id: str, by: Actor, *, deadline_seconds: float | None = None,
              reminders: Sequence[float] = (0.5, 0.9)) -> GameInfo:
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        self._require_gm(seats, by, "start the game")
        if row["status"] != "setup":
            raise InvalidOperation(f"the game is already {row['status']}")
        rules = self._rules_for(row)
        missing = [side for side in rules.sides
                   if not any(s["side"] == side and s["role"] == "player" for s in seats)]
        if missing:
            raise InvalidOperation(f"no player seated for {', '.join(missing)}")
        state = initial_state(rules, row["scenario"], json.loads(row["options"]))
        now = self.clock()
        state_hash = state.state_hash()
        fields: dict[str, Any] = {"status": "active", "state_hash": state_hash,
                                  "to_act": rules.acting_side(state)}
        if deadline_seconds:
            fields.update(deadlines.settings(deadline_seconds, reminders))
            fields.update(deadlines.reset(rules.acting_side(state), deadline_seconds, now))
        self.store.update_game(game_id, fields, expected_seq=0,
                               snapshot=Snapshot(0, state.to_json(), state_hash))
        return self.info(game_id)

    def set_deadline(self, game_id: str, by: Actor, seconds: float | None,
                     reminders: Sequence[float] = (0.5, 0.9)) -> GameInfo:
        with self._lock(game_id):
            ctx = self._load(game_id)
            self._require_gm(ctx.seats, by, "set deadlines")
            fields = deadlines.settings(seconds, reminders)
            side = ctx.game.acting_side(ctx.state)
            # While paused the clock is stopped: the new period starts when play resumes.
            since = ctx.row["paused_at"] if ctx.row["status"] == "paused" else None
            fields.update(deadlines.reset(side, seconds,
                                          float(since) if since is not None else self.clock()))
            self.store.update_game(game_id, fields, expected_seq=ctx.head)
        return self.info(game_id)

    def info(self, game_id: str, viewer: Actor | None = None, *,
             contacts: bool = False) -> GameInfo:
        """The game's status and seats. A seat's email address is shown only to the GM and
        to whoever holds that seat (``viewer``); ``contacts`` gives every address, for a
        frontend that must reach its players and shows addresses to nobody else."""
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        return self._info(row, seats, contacts or self._sees_contacts(seats, viewer), viewer)

    @staticmethod
    def _sees_contacts(seats: Sequence[Mapping[str, Any]], viewer: Actor | None) -> bool:
        """Whether ``viewer`` may read every seat's address: the game's GM."""
        return viewer is not None and any(viewer.holds(s) and s["role"] == "gm" for s in seats)

    def _scenario_name(self, row: Mapping[str, Any]) -> str:
        """The scenario a game plays: its stored one, else its game's default (the first
        of :meth:`Game.scenarios`); empty for a game this install no longer has."""
        if row["scenario"]:
            return str(row["scenario"])
        try:
            rules = self._load_rules(str(row["game"]), row["pack_path"])
        except Exception:  # a game or pack this install no longer has: nothing to name
            return ""
        return next(iter(rules.scenarios()), "")

    def _info(self, row: Mapping[str, Any], seats: Sequence[Mapping[str, Any]],
              contacts: bool = False, viewer: Actor | None = None) -> GameInfo:
        def shown(seat: Mapping[str, Any]) -> bool:
            return contacts or (viewer is not None and viewer.holds(seat))

        labels = contact_labels(seats) if not contacts else {}
        return GameInfo(
            id=row["id"], game=row["game"], scenario=row["scenario"],
            scenario_name=self._scenario_name(row), status=row["status"],
            to_act=row["to_act"], result=row["result"], commitment=row["commitment"],
            pack_hash=row["pack_hash"],
            seats=[self._seat_info(s, shown(s)) for s in seats],
            head_seq=row["head_seq"], branch=row["branch"], deadline_at=row["deadline_at"],
            bindings=json.loads(row["bindings"] or "{}"), created=row.get("created"),
            paused_at=row.get("paused_at"),
            paused_by=redact_label(row.get("paused_by"), labels),
            pause_reason=row.get("pause_reason"),
            entropy=[entropy_digest(e["text"]) for e in self.store.entropy(str(row["id"]))])

    @staticmethod
    def _seat_info(seat: Mapping[str, Any], email: bool = True) -> SeatInfo:
        return SeatInfo(side=seat["side"], role=seat["role"], discord_id=seat["discord_id"],
                        email=seat["email"] if email else None,
                        secret=bool(seat.get("password_hash")))

    def games_for(self, actor: Actor) -> list[GameInfo]:
        """The games ``actor`` is seated in (addresses as :meth:`info` shows them to it)."""
        check_text(actor, "your name or address", limit=MAX_ID)
        rows = self.store.games_of(actor.discord_id, actor.email)
        out = []
        for row in rows:
            seats = self.store.seats(row["id"])
            out.append(self._info(row, seats, self._sees_contacts(seats, actor), actor))
        return out


    def reveal_seed(self, game_id: str, by: Actor) -> str:
        """The server seed (hex), to anyone once the game is over — and to nobody before,
        the GM included: a seed seen in play tells every die to come (and the entropy was
        fixed before it could be seen). Every read is logged (:meth:`audit`)."""
        row = self._row(game_id)
        if not row["seed_revealed"]:
            raise PermissionDenied("the dice seed stays secret until the game is over, from "
                                   "everyone (the GM too); then anyone may check every die "
                                   f"against the commitment {row['commitment']}")
        if row["server_seed"] is None:
            raise InvalidOperation("this game's seed is not held here")
        self.store.audit(game_id, by.label, "seed-read", "reveal_seed")
        return bytes(row["server_seed"]).hex()

    def audit(self, game_id: str, gm: Actor) -> list[dict[str, Any]]:
        """Who read the game's secrets (dice seed reads), when: for its GM."""
        self._row(game_id)
        self._require_gm(self.store.seats(game_id), gm, "read the audit trail")
        return self.store.audit_trail(game_id)

    def game_rules(self, name: str) -> Game[Any]:
        """The rules of a kind of game with its shipped data pack (names, sides, notation);
        a game's own rules, bound to its pack, are :meth:`rules`."""
        try:
            return self._load_rules(name, None)
        except UnknownGame as error:
            raise InvalidOperation(str(error)) from error

    def games_behind(self, key: str, cursor: str) -> list[GameInfo]:
        """Games a frontend bound with ``key`` that moved on since it last published
        (its cursor: ``meta[cursor + game id]``, the last action it published)."""
        check_text([key, cursor], "the binding", limit=MAX_ID)
        return [self._info(row, self.store.seats(str(row["id"])))
                for row in self.store.games_behind(key, cursor)]

    def find_by_binding(self, key: str, value: str | int) -> GameInfo | None:
        """The game a frontend bound to ``key`` = ``value`` (e.g. a Discord thread id);
        the newest if several were."""
        check_text([key, str(value)], "the binding", limit=MAX_ID)
        rows = self.store.games_bound(key, str(value))
        if not rows:
            return None
        return self._info(rows[0], self.store.seats(str(rows[0]["id"])))

    def games_bound(self, key: str, value: str | int) -> list[GameInfo]:
        """Every game a frontend bound to ``key`` = ``value`` (e.g. a Discord server), newest
        first."""
        check_text([key, str(value)], "the binding", limit=MAX_ID)
        return [self._info(row, self.store.seats(str(row["id"])))
                for row in self.store.games_bound(key, str(value))]
