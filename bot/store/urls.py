"""Where a store is: the one parser of database targets, and their redaction.

Every command, the bot and the mail gateway name their database the same ways:

* a plain path (``umpire.db``, ``~/games/umpire.db``, ``/srv/umpire/umpire.db``): a SQLite file;
* ``sqlite://PATH``: everything after ``sqlite://`` is the path, so ``sqlite:///srv/u.db``
  is the absolute ``/srv/u.db``, ``sqlite:////srv/u.db`` the same (extra slashes are one),
  and ``sqlite://games/u.db`` the relative ``games/u.db``;
* ``postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?…]`` or ``postgres://…``: a PostgreSQL
  database (libpq's URL).

Anything else that looks like a URL (``sqlite:/x.db``, ``mysql://…``, ``postgresql:x``) is
refused with a message saying what is accepted, rather than taken for a file name such as
``./sqlite:/x.db``. A file whose name really starts with ``word:`` is given as ``./word:…``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl, urlsplit

#: What a target may be, for messages.
ACCEPTED = ("a file path, sqlite:///ABSOLUTE/PATH, sqlite://RELATIVE/PATH or "
            "postgresql://USER@HOST/DB")
#: ``word:`` at the start of a target: a URL's scheme (a file name this way is written ./…).
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")
#: ``password`` query parameters of a libpq URL (``?password=…``).
_QUERY_SECRET = re.compile(r"([?&](?:password|sslpassword)=)[^&#]*", re.IGNORECASE)
#: A URL's ``scheme://``.
_URL_HEAD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


class BadTarget(ValueError):
    """A database target this Umpire does not understand (the message says what it takes)."""


@dataclass(frozen=True)
class StoreTarget:
    """A parsed database target: a SQLite file's path, or a PostgreSQL URL."""

    backend: Literal["sqlite", "postgresql"]
    #: The SQLite file (None for PostgreSQL).
    path: Path | None = None
    #: The PostgreSQL URL as given (None for SQLite).
    url: str | None = None

    @property
    def where(self) -> str | Path:
        """The file path or the URL."""
        if self.path is not None:
            return self.path
        assert self.url is not None
        return self.url

    @property
    def label(self) -> str:
        """Where the store is, without any password (for messages and logs)."""
        return str(self.path) if self.path is not None else redact(str(self.url))


def parse_target(target: str | Path) -> StoreTarget:
    """The store ``target`` names (see the module notes); :class:`BadTarget` when it names
    none."""
    if isinstance(target, Path):
        return StoreTarget("sqlite", path=target.expanduser())
    text = target.strip()
    if not text:
        raise BadTarget(f"no database given: use {ACCEPTED}")
    match = _SCHEME.match(text)
    if match is None:
        return StoreTarget("sqlite", path=Path(text).expanduser())
    scheme = match.group(1).lower()
    rest = text[match.end():]
    shown = redact(text)
    if scheme in ("postgresql", "postgres"):
        if not rest.startswith("//"):
            raise BadTarget(f"{shown}: a PostgreSQL URL is postgresql://USER@HOST/DB")
        try:
            parts = urlsplit(text)
            parse_qsl(parts.query, strict_parsing=bool(parts.query))
            _ = parts.port
        except ValueError as error:
            raise BadTarget(f"{shown}: not a PostgreSQL URL ({redact(str(error))}); "
                            "write postgresql://USER@HOST:PORT/DB") from None
        return StoreTarget("postgresql", url=text)
    if scheme == "sqlite":
        if not rest.startswith("//"):
            raise BadTarget(f"{shown}: a SQLite URL is sqlite:///ABSOLUTE/PATH or "
                            "sqlite://RELATIVE/PATH")
        path = rest[2:]
        if not path.strip("/"):
            raise BadTarget(f"{shown} names no file: sqlite:///path/to/umpire.db")
        if "?" in path or "#" in path:
            raise BadTarget(f"{shown}: a SQLite URL takes no options (?…, #…)")
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        return StoreTarget("sqlite", path=Path(path).expanduser())
    raise BadTarget(f"{shown}: unknown database kind {scheme}: — use {ACCEPTED} (a file "
                    f"whose name starts with {scheme}: is written ./{scheme}:…)")


def redact(text: str) -> str:
    """``text`` (a target, or a message quoting one) without any password in it: the
    ``user:password@`` of a URL becomes ``user:***@`` (up to the URL's last ``@``, so a
    password holding ``@`` or ``/`` is hidden whole) and ``password=…`` becomes
    ``password=***``."""
    out = []
    for word in re.split(r"(\s+)", text):
        head = _URL_HEAD.search(word)
        if head is not None:
            auth, at, tail = word[head.end():].rpartition("@")
            if at and ":" in auth:
                word = f"{word[:head.end()]}{auth.split(':', 1)[0]}:***@{tail}"
        out.append(_QUERY_SECRET.sub(r"\1***", word))
    return "".join(out)
