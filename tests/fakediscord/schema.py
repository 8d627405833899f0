"""Validate request bodies against Discord's own schemas (``discord-api-subset.json``)."""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

SUBSET = Path(__file__).resolve().parent / "discord-api-subset.json"


@cache
def _document() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SUBSET.read_text(encoding="utf-8"))
    # Discord reads a snowflake given as a JSON number as well as a string (discord.py sends
    # a new attachment's id as 0); the description states only the string form.
    snowflake = data["components"]["schemas"]["SnowflakeType"]
    data["components"]["schemas"]["SnowflakeType"] = {
        "anyOf": [snowflake, {"type": "integer", "minimum": 0}]}
    return data


@cache
def validator(route: str) -> Draft202012Validator:
    """The validator of the request body of ``route`` ("POST /channels/{channel_id}/messages")."""
    document = _document()
    schema = {**document["routes"][route], "components": document["components"]}
    return Draft202012Validator(schema)


def routes() -> list[str]:
    return list(_document()["routes"])


def problems(route: str, body: Any) -> list[str]:
    """Why Discord would refuse ``body`` on ``route``: empty when it is valid. A body
    already checked on that route (the same JSON, keys in any order) is not checked again:
    the answer is the same, and a burst repeats many (every defer's body is one)."""
    try:
        text = json.dumps(body, sort_keys=True)
    except (TypeError, ValueError):  # not JSON (nothing Discord could receive): checked as is
        return _problems(route, body)
    return list(_checked(route, text))


@lru_cache(maxsize=4096)
def _checked(route: str, text: str) -> tuple[str, ...]:
    return tuple(_problems(route, json.loads(text)))


def _problems(route: str, body: Any) -> list[str]:
    check = validator(route)
    errors = list(check.iter_errors(body))
    if not errors:
        return []
    best = best_match(errors)
    where = "/".join(str(part) for part in best.absolute_path) or "(body)"
    shown = [f"{where}: {best.message[:300]}"]
    for error in errors[:5]:
        if error is not best:
            path = "/".join(str(part) for part in error.absolute_path) or "(body)"
            shown.append(f"{path}: {error.message[:200]}")
    return shown
