"""What one link's requests read, always through the game service and from that link's
View (never the full state): the page's state JSON, the map picture, the legal orders, the
replay, the verification details. Blocking (the store, the rules, the renderer): the routes
call these in a worker thread.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from adjudicator.kernel.events import GM
from adjudicator.kernel.views import View
from bot.replays import NotStarted, replay_frames
from bot.service import GameService, LinkHolder, SubmitResult
from render.replay import Frame, frames_by_step

#: How many log entries the state JSON holds (the newest).
LOG_ENTRIES = 50


class Cache:
    """A small least-recently-used cache, safe across threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Hashable, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = build()
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


@dataclass(frozen=True)
class Replay:
    """A link's replay: its frames, whether they show the full view, their cache key."""

    frames: list[Frame]
    full: bool
    key: tuple[str, str, int, str]


class SeatReads:
    """The reads of every link over one service (pictures and replays cached by the
    game's head sequence and the audience: what a link may see is all the key holds)."""

    def __init__(self, service: GameService, *, pictures: int = 64, replays: int = 8) -> None:
        self.service = service
        self.pictures = Cache(pictures)
        self.replays = Cache(replays)

    # ---- state ------------------------------------------------------------------------

    def state(self, holder: LinkHolder, csrf: str, base: str) -> dict[str, Any]:
        """The page's state JSON (docs/web.md, API): the link's view and what goes with it."""
        service, game_id = self.service, holder.game_id
        seat = service.seat_view(holder)
        view = seat.view
        info = service.info(game_id, holder.actor)
        rules = service.rules(game_id)
        log = service.log(game_id, holder.actor, LOG_ENTRIES, audience=view.viewer)
        guide = (service.setup_guide(game_id, holder.actor) if holder.role == "player"
                 and service.private_input(game_id) == holder.side else None)
        return {
            "game": {"id": info.id, "game": info.game, "scenario": info.scenario,
                     "status": seat.status, "result": view.result, "branch": info.branch,
                     "deadline_at": info.deadline_at, "paused": info.paused,
                     "commitment": info.commitment,
                     "sides": list(rules.sides),
                     "seats": [{"side": s.side, "role": s.role} for s in info.seats]},
            "seat": {"role": holder.role, "side": holder.side, "audience": view.viewer},
            "seq": seat.head,
            "to_act": view.to_act,
            "pending": None if view.pending is None else view.pending.model_dump(mode="json"),
            "view": view.model_dump(mode="json"),
            "board": rules.board_text(view),
            "briefing": service.briefing(game_id, holder.actor).model_dump(mode="json"),
            "setup": None if guide is None else guide.model_dump(mode="json"),
            "log": [entry.model_dump(mode="json") for entry in log],
            "csrf": csrf,
            "links": {"map": f"{base}/api/map.png?seq={seat.head}",
                      "events": f"{base}/events", "replay": f"{base}/api/replay",
                      "verify": f"{base}/api/verify", "record": f"{base}/api/record"},
        }

    # ---- pictures ---------------------------------------------------------------------

    def picture(self, holder: LinkHolder) -> tuple[int, bytes | None]:
        """(head sequence, PNG of the link's view then; None for a game without pictures)."""
        seat = self.service.seat_view(holder)
        key = ("map", holder.game_id, seat.view.viewer, seat.head)
        return seat.head, self.pictures.get(key, lambda: self._draw(holder.game_id, seat.view))

    def _draw(self, game_id: str, view: View) -> bytes | None:
        import render

        rules = self.service.rules(game_id)
        try:
            data: bytes = render.render(view, render.load_pack(rules.name, rules.pack))
        except render.NoPicture:
            return None
        return data

    def geometry(self, holder: LinkHolder) -> dict[str, Any]:
        """The map's geometry in the picture's pixels (:func:`render.geometry.geometry`:
        the same layout the picture is drawn with), its set-up zones and counters from the
        link's own View; only ``game`` and ``seq`` for a game without a picture."""
        import render
        from render.geometry import geometry

        seat = self.service.seat_view(holder)
        rules = self.service.rules(holder.game_id)
        try:
            pack = render.load_pack(rules.name, rules.pack)
        except render.NoPicture:
            return {"game": seat.view.game, "seq": seat.head}
        return {**geometry(seat.view, pack).as_json(), "seq": seat.head}

    # ---- legal orders -----------------------------------------------------------------

    def legal(self, holder: LinkHolder, unit: str | None, side: str | None) -> list[str]:
        """Every order the link's side may give now (the service's complete listing, the
        one every frontend uses); ``unit``: those naming that unit (a word of the order).
        A GM link names the side (``side``); a player's link is its own side only."""
        asked = side if holder.role == "gm" else holder.side
        if holder.role == "observer":
            return []
        orders = self.service.legal_orders(holder.game_id, holder.actor, asked, complete=True)
        if not unit:
            return orders
        word = re.compile(rf"(?<![\w-]){re.escape(unit)}(?![\w-])")
        return [order for order in orders if word.search(order)]

    # ---- orders -----------------------------------------------------------------------

    def submit_as(self, token: str, text: str, key: str | None, side: str | None
                  ) -> tuple[LinkHolder, SubmitResult, str]:
        """:meth:`submit` for the link ``token`` (resolved first: :class:`NotFound` if it is
        not valid); (the link, the result, its audience)."""
        holder = self.service.resolve_link(token)
        return (holder, *self.submit(holder, text, key, side))

    def submit(self, holder: LinkHolder, text: str, key: str | None,
               side: str | None) -> tuple[SubmitResult, str]:
        """The order ``text`` through the service's one submit call (what every frontend
        calls); (the result, the audience whose messages the link reads)."""
        asked = side if holder.role == "gm" else holder.side
        result = self.service.submit(holder.game_id, holder.actor, text, idempotency_key=key,
                                     side=asked)
        return result, holder.audience

    # ---- replay -----------------------------------------------------------------------

    def replay(self, holder: LinkHolder, by_step: bool = False) -> Replay:
        """The replay's frames for the link (its own view while the game runs; the full
        view once it is over: its record is anyone's then): one per action, or with
        ``by_step`` one per impulse (TP:S) or phase (Stalin's Tanks)."""
        seat = self.service.seat_view(holder)
        full = seat.status in ("finished", "archived")
        viewer = GM if full else seat.view.viewer
        key = (holder.game_id, viewer, seat.head, "step" if by_step else "action")
        rules = self.service.rules(holder.game_id)

        def build() -> list[Frame]:
            try:
                frames = replay_frames(rules, self.service.store, holder.game_id, viewer)
            except NotStarted:
                return []
            return frames_by_step(frames) if by_step else frames

        return Replay(self.replays.get(key, build), full, key)

    def replay_picture(self, holder: LinkHolder, number: int, by_step: bool = False
                       ) -> tuple[str, bytes | None]:
        """(a tag naming it, the PNG) of frame ``number`` of the link's replay
        (:class:`IndexError` if there is none)."""
        replay = self.replay(holder, by_step)
        if not 0 <= number < len(replay.frames):
            raise IndexError(number)
        view = replay.frames[number].view
        data: bytes | None = self.pictures.get(("frame", *replay.key, number),
                                               lambda: self._draw(holder.game_id, view))
        return "-".join(map(str, (*replay.key[1:], number))), data
