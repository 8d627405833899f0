"""Secret links to the web page (issue 25): a link per seat (a player's, a GM's) and a
public observer link per game. A link is a random token; the store keeps only its hash
(:func:`token_hash`), so a copy of the database opens no page. Links are issued to whoever
holds the seat, re-issued (every older link of the seat revoked at once), and revoked by the
game's GM.

The rules of links (docs/web.md, *Link rules*):

* ``link`` gives a seat holder a new link to their seat; the ones given before keep working,
  at most :data:`MAX_LINKS` per seat (issuing one more revokes the oldest);
* ``link new`` revokes every link of the seat and gives one new link (a link seen by
  someone else);
* the GM re-issues or revokes any seat's links, and the game's observer link;
* a seat's links stop when the seat is closed (a replaced player);
* anyone seated in the game, and its GM, may ask for the observer link (it shows the public
  view only); only the GM replaces it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from adjudicator.kernel.events import GM, PUBLIC
from adjudicator.kernel.views import View
from bot.service.models import (
    Actor,
    Export,
    InvalidOperation,
    NotFound,
    PermissionDenied,
)
from bot.service.reads import Reads
from bot.service.text import MAX_ID, check_text

#: Links in force per seat (or per game for observers): one more revokes the oldest.
MAX_LINKS = 5
#: Random bytes in a token (its text is their URL-safe base64: 32 characters).
TOKEN_BYTES = 24
#: The longest text taken as a token (a longer one is refused before it is hashed).
MAX_TOKEN = 64

LinkKind = Literal["seat", "observer"]


def token_hash(token: str) -> str:
    """The stored form of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token, safe in a URL path."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def well_formed(token: str) -> bool:
    """Whether ``token`` could be one this module issued (URL-safe base64, bounded)."""
    return 0 < len(token) <= MAX_TOKEN and all(c.isalnum() or c in "-_" for c in token)


class WebLink(BaseModel):
    """A link just issued: the token is shown once, to the person it is for."""

    model_config = ConfigDict(frozen=True)

    game_id: str
    token: str
    kind: LinkKind
    #: The seat's side (None: a GM seat, or the observer link).
    side: str | None = None
    role: Literal["player", "gm", "observer"] = "player"
    #: How many older links of the seat this issue revoked.
    revoked: int = 0

    @property
    def path(self) -> str:
        """The page's path: ``/s/TOKEN`` (the base URL comes from the configuration)."""
        return f"/s/{self.token}"


class LinkHolder(BaseModel):
    """Who a valid token speaks for: the game, the seat (or the public), the audience whose
    view it reads, and the :class:`Actor` its requests are made as."""

    model_config = ConfigDict(frozen=True)

    game_id: str
    token_hash: str
    kind: LinkKind
    role: Literal["player", "gm", "observer"]
    side: str | None
    seat_id: int | None
    actor: Actor

    @property
    def audience(self) -> str:
        """The view this link reads: its side's, the GM's, or the public one."""
        if self.role == "gm":
            return GM
        return self.side or PUBLIC


class Links(Reads):
    """Issue, re-issue, revoke and resolve secret links (see the module notes)."""

    def issue_link(self, game_id: str, actor: Actor, *, side: str | None = None,
                   new: bool = False) -> WebLink:
        """A new link to ``actor``'s seat in the game (the player seat of ``side``; without
        ``side``: their one player seat, else their GM seat). ``new``: every older link of
        the seat is revoked (``link new``)."""
        check_text([actor, side], "the name, address or side", limit=MAX_ID)
        self._row(game_id)
        mine = [s for s in self.store.seats(game_id) if actor.holds(s)]
        players = [s for s in mine if s["role"] == "player"
                   and (side is None or s["side"] == side)]
        gms = [s for s in mine if s["role"] == "gm"]
        if len(players) > 1:
            raise InvalidOperation("you hold several seats in this game: name the side ("
                                   + ", ".join(str(s["side"]) for s in players) + ")")
        seat = players[0] if players else (gms[0] if gms and side is None else None)
        if seat is None:
            raise PermissionDenied(f"you hold no seat{' for ' + side if side else ''} in "
                                   f"game {game_id}: a link is for a seat's holder")
        return self._issue(game_id, actor.label, seat, new=new)

    def reissue_link(self, game_id: str, gm: Actor, side: str) -> WebLink:
        """The GM replaces every link of ``side``'s player seat with one new link (to be
        given to the player: the old ones stop at once)."""
        check_text([gm, side], "the name, address or side", limit=MAX_ID)
        seat = self._side_seat(game_id, gm, side, "re-issue a seat's link")
        return self._issue(game_id, gm.label, seat, new=True)

    def revoke_seat_links(self, game_id: str, gm: Actor, side: str) -> int:
        """The GM revokes every link of ``side``'s player seat (none issued in its place);
        how many were in force."""
        check_text([gm, side], "the name, address or side", limit=MAX_ID)
        seat = self._side_seat(game_id, gm, side, "revoke a seat's links")
        rows = self.store.links(game_id, kind="seat", seat_id=int(seat["id"]))
        return self.store.revoke_links([str(r["token_hash"]) for r in rows], gm.label,
                                       self.clock())

    def observer_link(self, game_id: str, actor: Actor, *, new: bool = False) -> WebLink:
        """A link to the game's public view, for anyone seated in the game; ``new`` (the GM
        only): every older observer link is revoked."""
        check_text(actor, "the name or address", limit=MAX_ID)
        self._row(game_id)
        seats = self.store.seats(game_id)
        if not any(actor.holds(s) for s in seats):
            raise PermissionDenied(f"you hold no seat in game {game_id}: ask its GM for the "
                                   "observers' link")
        if new:
            self._require_gm(seats, actor, "replace the observers' link")
        return self._issue(game_id, actor.label, None, new=new)

    def resolve_link(self, token: str) -> LinkHolder:
        """Who ``token`` speaks for (:class:`NotFound` if it is malformed, unknown, revoked
        or its seat closed: the same message for each, so a guess learns nothing)."""
        if not isinstance(token, str) or not well_formed(token):
            raise NotFound("this link is not valid (revoked, replaced or mistyped): ask for "
                           "a new one")
        hashed = token_hash(token)
        row = self.store.link(hashed)
        if row is None:
            raise NotFound("this link is not valid (revoked, replaced or mistyped): ask for "
                           "a new one")
        return holder_of(row)

    def seat_view(self, holder: LinkHolder) -> SeatView:
        """The view ``holder``'s link reads now, with the head sequence it is the view of
        (one load of the game). A GM link of a GM who also plays reads no GM view during
        play (:class:`PermissionDenied`, as everywhere)."""
        ctx = self._load(holder.game_id)
        status = str(ctx.row["status"])
        audience = self._audience(ctx.game, ctx.seats, holder.actor, holder.audience, status)
        return SeatView(head=ctx.head, status=status, view=ctx.game.view(ctx.state, audience))

    def seat_record(self, holder: LinkHolder) -> Export:
        """The game's record as ``holder``'s link may have it (:meth:`Reads.export`: the
        audience's redacted record in play, the full one after the end or for the GM).
        Refused when the person holding the seat would read it as another audience (they
        hold other seats of the game too): a link reads its own seat's record only."""
        row = self._row(holder.game_id)
        seats = self.store.seats(holder.game_id)
        game = self._rules_for(row)
        richest = self._audience(game, seats, holder.actor, None, str(row["status"]))
        if richest != holder.audience and row["status"] != "finished":
            raise PermissionDenied("this seat's holder holds other seats of the game too: "
                                   "its record is not given on this page")
        return self.export(holder.game_id, holder.actor)

    def link_watch(self, game_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """(head sequence, links ended so far) of each game: one cheap read for them all,
        polled by the pages' event streams (:meth:`bot.store.Store.link_watch`)."""
        return self.store.link_watch(game_ids)

    # ---- helpers --------------------------------------------------------------------

    def _side_seat(self, game_id: str, gm: Actor, side: str, what: str) -> dict[str, Any]:
        row = self._row(game_id)
        seats = self.store.seats(game_id)
        self._require_gm(seats, gm, what, str(row["status"]))
        found = [s for s in seats if s["role"] == "player" and s["side"] == side]
        if not found:
            sides = sorted({str(s["side"]) for s in seats if s["role"] == "player"})
            raise InvalidOperation(f"no player holds {side!r} in game {game_id}"
                                   + (f"; seated sides: {', '.join(sides)}" if sides else ""))
        return found[0]

    def _issue(self, game_id: str, by: str, seat: Mapping[str, Any] | None, *,
               new: bool) -> WebLink:
        kind: LinkKind = "seat" if seat is not None else "observer"
        seat_id = int(seat["id"]) if seat is not None else None
        current = self.store.links(game_id, kind=kind, seat_id=seat_id)
        if seat is None:
            current = [r for r in current if r["seat_id"] is None]
        ending = _ending(current, new)
        token = new_token()
        now = self.clock()
        self.store.add_link({"token_hash": token_hash(token), "game_id": game_id,
                             "kind": kind, "seat_id": seat_id, "created": now,
                             "created_by": by}, revoke=ending, by=by, when=now)
        role: Literal["player", "gm", "observer"] = (
            "observer" if seat is None else "gm" if seat["role"] == "gm" else "player")
        return WebLink(game_id=game_id, token=token, kind=kind,
                       side=seat["side"] if seat is not None else None, role=role,
                       revoked=len(ending))


def _ending(current: Sequence[Mapping[str, Any]], new: bool) -> list[str]:
    """The links a new issue revokes: all (``new``), else the oldest past the cap."""
    hashes = [str(r["token_hash"]) for r in current]
    return hashes if new else hashes[:max(0, len(hashes) - MAX_LINKS + 1)]


def holder_of(row: Mapping[str, Any]) -> LinkHolder:
    """The :class:`LinkHolder` of a link row joined with its seat (:meth:`Store.link`)."""
    if row["seat_id"] is None:
        return LinkHolder(game_id=str(row["game_id"]), token_hash=str(row["token_hash"]),
                          kind="observer", role="observer", side=None, seat_id=None,
                          actor=Actor())
    return LinkHolder(game_id=str(row["game_id"]), token_hash=str(row["token_hash"]),
                      kind="seat", role="gm" if row["role"] == "gm" else "player",
                      side=row["side"], seat_id=int(row["seat_id"]),
                      actor=Actor(discord_id=row["discord_id"], email=row["email"]))


class SeatView(BaseModel):
    """One link's view of its game at one moment: the game's head sequence and status as
    they were when the view was made (read together, so a picture cached by sequence is
    the picture of that sequence)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    head: int
    status: str
    view: View
