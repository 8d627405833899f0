"""Extract from Discord's OpenAPI description the request schemas the fake Discord checks.

Discord publishes a machine-readable description of its HTTP API (OpenAPI 3.1, MIT
licence). The fake validates every request body it receives against the schema of its
route, so what real Discord refuses, the tests refuse. A fresh clone may not have the full
description beside it, so the part the fake uses is kept in ``discord-api-subset.json``
(with Discord's licence in ``DISCORD-API-LICENSE``). Regenerate it with::

    uv run python -m tests.fakediscord.extract_schema PATH/TO/openapi.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SUBSET = HERE / "discord-api-subset.json"

#: (OpenAPI path, method) of every request body the fake validates.
ROUTES: tuple[tuple[str, str], ...] = (
    ("/applications/{application_id}/commands", "put"),
    ("/applications/{application_id}/guilds/{guild_id}/commands", "put"),
    ("/interactions/{interaction_id}/{interaction_token}/callback", "post"),
    ("/webhooks/{webhook_id}/{webhook_token}", "post"),
    ("/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", "patch"),
    ("/channels/{channel_id}/messages", "post"),
    ("/channels/{channel_id}/messages/{message_id}", "patch"),
    ("/channels/{channel_id}/threads", "post"),
    ("/users/@me/channels", "post"),
)


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def extract(api: dict[str, Any]) -> dict[str, Any]:
    routes: dict[str, Any] = {}
    for path, method in ROUTES:
        content = api["paths"][path][method]["requestBody"]["content"]
        routes[f"{method.upper()} {path}"] = content["application/json"]["schema"]
    schemas = api["components"]["schemas"]
    wanted: set[str] = set()
    _refs(routes, wanted)
    done: set[str] = set()
    while wanted - done:
        name = sorted(wanted - done)[0]
        done.add(name)
        _refs(schemas[name], wanted)
    return {"source": "Discord's OpenAPI description of its v10 HTTP API (MIT licence, see "
                      "DISCORD-API-LICENSE), the request schemas of the routes below",
            "routes": routes,
            "components": {"schemas": {name: schemas[name] for name in sorted(done)}}}


def main(argv: list[str]) -> int:
    source = Path(argv[1] if len(argv) > 1 else HERE.parents[2] / "shared/discord/openapi.json")
    subset = extract(json.loads(source.read_text(encoding="utf-8")))
    SUBSET.write_text(json.dumps(subset, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    licence = source.parent / "LICENSE"
    if licence.exists():
        (HERE / "DISCORD-API-LICENSE").write_text(licence.read_text(encoding="utf-8"),
                                                 encoding="utf-8")
    print(f"{SUBSET}: {len(subset['routes'])} routes, "
          f"{len(subset['components']['schemas'])} schemas")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
