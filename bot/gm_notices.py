"""Notices for a game's GM that one frontend leaves for another to deliver.

The mail gateway cannot reach Discord itself: when it must tell a game's GM something
(it has failed to send or receive mail for a while), it leaves the notice in the store
(``meta``, under ``gm-notice:FRONTEND:GAME:TIME``) and the Discord bot's follow loop
delivers it to the game's GMs by DM, then removes it. Audience: the game's GMs only.
"""

from __future__ import annotations

import time

from bot.store import Store

PREFIX = "gm-notice:"
#: The frontend that delivers a notice (the only one today).
DISCORD = "discord"


def leave(store: Store, frontend: str, game_id: str, text: str) -> None:
    """Leave ``text`` for ``game_id``'s GMs, to be delivered by ``frontend``."""
    store.set_meta(f"{PREFIX}{frontend}:{game_id}:{time.time_ns()}", text)


def waiting(store: Store, frontend: str) -> list[tuple[str, str, str]]:
    """(key, game id, text) of each notice ``frontend`` has to deliver, oldest first."""
    rows = store.query("SELECT key, value FROM meta WHERE key LIKE ? ORDER BY key",
                       [f"{PREFIX}{frontend}:%"])
    found = []
    for row in rows:
        key = str(row["key"])
        game_id = key[len(PREFIX) + len(frontend) + 1:].rsplit(":", 1)[0]
        found.append((key, game_id, str(row["value"] or "")))
    return found


def delivered(store: Store, key: str) -> None:
    """Remove a notice once it was delivered."""
    with store.write() as tx:
        tx.execute("DELETE FROM meta WHERE key = ?", [key])
