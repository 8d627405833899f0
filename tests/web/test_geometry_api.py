"""The page's click layer over HTTP (issue 25): ``api/geometry`` (the map's shapes, from the
link's View) and ``api/entries`` (the side's legal orders with their units and places, the
standing orders offered). A hidden set-up (20.0, 25.2) reaches neither of the Soviet's."""

from __future__ import annotations

import json
from pathlib import Path

from bot.web.tokens import CSRF_HEADER
from tests.web.server_games import HIDDEN, hidden_setup_lines, pakfront, serving


async def test_geometry_and_entries_of_a_seat_20_0_25_2(tmp_path: Path) -> None:
    game = pakfront(tmp_path / "g.db")
    async with serving(game.service) as client:
        german = await (await client.get(f"/s/{game.german}/api/entries")).json()
        first = german["entries"][0]
        assert first["verb"] in ("place", "hide") and first["units"] and first["places"]
        assert {e["places"][-1] for e in german["entries"]} >= {"0101", "2620"}
        soviet = await (await client.get(f"/s/{game.soviet}/api/entries")).json()
        assert soviet["entries"] == []  # not the Soviet's turn
        observer = await (await client.get(f"/s/{game.observer}/api/entries")).json()
        assert observer == {"entries": [], "standing": [], "set": {}}

        state = await (await client.get(f"/s/{game.german}/api/state")).json()
        done = await (await client.post(
            f"/s/{game.german}/api/submit", headers={CSRF_HEADER: state["csrf"]},
            json={"text": "\n".join(hidden_setup_lines()), "key": "setup"})).json()
        assert done["status"] == "applied", done

        own = await (await client.get(f"/s/{game.german}/api/geometry")).json()
        theirs = await (await client.get(f"/s/{game.soviet}/api/geometry")).json()
        assert own["size"] == theirs["size"] and len(own["shapes"]) == len(theirs["shapes"])
        mine = {c["unit"]: c["space"] for c in own["counters"]}
        assert all(mine[unit] == where for unit, where in HIDDEN.items())
        text = json.dumps(theirs)
        assert not any(unit in text for unit in HIDDEN)
        soviet = await (await client.get(f"/s/{game.soviet}/api/entries")).json()
        assert soviet["entries"] and not any(unit in json.dumps(soviet) for unit in HIDDEN)
        assert (await client.get("/s/not-a-link/api/geometry")).status == 404
        assert own["seq"] == theirs["seq"] == done["seqs"][-1]
        bad = await client.get(f"/s/{game.german}/api/entries?side=a\x01")
        assert bad.status == 400
