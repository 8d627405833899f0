"""The operator's desk: what whoever holds the database may do outside any game's seats.

The ``umpire`` command run where the database is (``umpire games``, ``export``, ``import``,
``render``, ``export-gif``) reads every game as it is: its full record and dice seed, any
viewer's picture. Frontends that serve players (Discord, email, the console) never use it:
they go through the seat-checked calls of :class:`~bot.service.GameService`. Every read of
a dice seed here is written to the game's audit trail, as ``operator``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.kernel.views import View
from bot.records import export_lines, import_file
from bot.service.models import GameInfo
from bot.service.seats import Seats

if TYPE_CHECKING:
    from render.replay import Frame

#: The actor label of the operator's reads in the audit trail.
OPERATOR = "operator"


class OperatorDesk:
    """The operator's calls on one service (``service.operator``)."""

    def __init__(self, service: Seats) -> None:
        self._service = service

    def games(self) -> list[GameInfo]:
        """Every stored game with its seats, newest first as the store lists them."""
        service = self._service
        return [service._info(row, service.store.seats(str(row["id"])), contacts=True)
                for row in service.store.games()]

    def record(self, game_id: str) -> list[dict[str, Any]]:
        """The game's full record (:mod:`bot.records`: header, then one line per action);
        :class:`~bot.records.RecordError` when it cannot be read."""
        lines = export_lines(self._service.store, game_id)
        if lines and "seed" in lines[0]:
            self._service.store.audit(game_id, OPERATOR, "seed-read", "export")
        return lines

    def dice_seed(self, game_id: str) -> bytes | None:
        """The game's dice seed, to go on playing it elsewhere (None: not held here)."""
        row = self._service._row(game_id)
        seed = row.get("server_seed")
        if not seed:
            return None
        self._service.store.audit(game_id, OPERATOR, "seed-read", "export --seed-out")
        return bytes(seed)

    def import_record(self, path: Path, seed_hex: str | None = None,
                      pack: Path | None = None) -> GameInfo:
        """Recreate a game from a record file (verified first); with its seed a game in
        progress goes on here."""
        game_id = import_file(self._service.store, path, seed_hex, pack)
        service = self._service
        return service._info(service._row(game_id), service.store.seats(game_id),
                             contacts=True)

    def view(self, game_id: str, viewer: str) -> View:
        """Any viewer's view of the game now (a side, ``public`` or ``gm``)."""
        ctx = self._service._load(game_id)
        return ctx.game.view(ctx.state, viewer)

    def replay_frames(self, game_id: str, viewer: str) -> list[Frame]:
        """One frame per active action for ``viewer`` (:mod:`bot.replays`)."""
        from bot.replays import replay_frames

        service = self._service
        return replay_frames(service.rules(game_id), service.store, game_id, viewer)
