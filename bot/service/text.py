"""User text at the service's door: every public call that takes text a person typed (orders,
reasons, names, secrets, GM operations, idempotency keys, game ids, the actor's own id or
address) passes it through :func:`check_text` before anything else reads it, so text no
store, digest or frontend can carry is refused with a clear message and nothing is stored.

Refused: a lone surrogate (U+D800–U+DFFF: it cannot be encoded as UTF-8, so neither the
request's fingerprint, nor the store, nor a Discord message or a mail could carry it), a
NUL or another control character (PostgreSQL's text holds no NUL; the others garble a
console, a log line or a mail; tab, line feed and carriage return are allowed), and text
over its length bound."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from bot.service.models import InvalidOperation

#: The length bound of one text when its caller names none (a reason, a name, a key).
MAX_TEXT = 2_000
#: The length bound of an id, an address or a key.
MAX_ID = 320
#: The most strings one request may hold (a GM operation's arguments, options, bindings).
MAX_PARTS = 200
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Unicode's control characters (category Cc) but tab, line feed and carriage return.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class BadText(InvalidOperation):
    """Text the service cannot take (see the module notes); ``rule`` is ``"input"``."""

    rule = "input"


def check_text(value: Any, what: str, *, limit: int = MAX_TEXT) -> None:
    """Refuse (:class:`BadText`) ``value`` if any text in it cannot be taken: ``value`` is a
    string, or a mapping, list, tuple or model holding strings (keys included), or any
    other value (numbers, None: nothing to check). ``what`` names it in the message
    ("the reason"); ``limit`` bounds each string's length."""
    parts = 0
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, BaseModel):
            pending.append(item.model_dump(mode="python"))
        elif isinstance(item, str):
            parts += 1
            _check_one(item, what, limit)
        elif isinstance(item, Mapping):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            pending.extend(item)
        if parts > MAX_PARTS:
            raise BadText(f"{what} holds more than {MAX_PARTS} texts; nothing was done")


def _check_one(text: str, what: str, limit: int) -> None:
    if len(text) > limit:
        raise BadText(f"{what} holds at most {limit} characters; this one has {len(text)}; "
                      "nothing was done")
    found = _SURROGATE.search(text)
    if found is not None:
        raise BadText(f"{what} holds a lone surrogate (U+{ord(found[0]):04X}) at character "
                      f"{found.start() + 1}: text must be valid Unicode (UTF-8); nothing was "
                      "done")
    found = _CONTROL.search(text)
    if found is not None:
        raise BadText(f"{what} holds a control character (U+{ord(found[0]):04X}) at "
                      f"character {found.start() + 1}: only printable text, tabs and line "
                      "breaks are taken; nothing was done")


def shown(text: str) -> str:
    """``text`` safe to echo back in a refusal (what cannot be encoded replaced)."""
    return text.encode("utf-8", "replace").decode("utf-8")
