"""Discord's limits on application commands, checked before anything is sent.

``umpire bot --check-commands`` and the tests run :func:`check` over every command payload
the bot would register, scope by scope. The limits are Discord's documented ones (its API
description states most of them as schemas; the test suite's fake Discord validates every
request against those schemas as well):

* names 1-32 characters, lower case letters, digits, ``-`` and ``_``; descriptions 1-100;
* at most 25 options per command, group or subcommand, and 25 choices per option; a
  choice's name and value at most 100 characters;
* required options before optional ones; options either all subcommands/groups or none;
* autocomplete and fixed choices never on the same option;
* at most 4,000 characters per command, counting names, descriptions, choice names and
  values of the command and everything in it — Umpire keeps every command within
  :data:`COMMAND_BUDGET` (3,600), so a wording change cannot bring a command to the limit
  where Discord refuses the whole command set;
* at most 100 slash commands per scope (global, or one server);
* an attachment of at most :data:`ATTACHMENT_BYTES` (10 MiB, a bot's limit where a server
  has no boost): :func:`fit_attachment` gzips a larger file, or says it cannot be sent.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

NAME = re.compile(r"^[-_\w]{1,32}$")
MAX_DESCRIPTION = 100
MAX_OPTIONS = 25
MAX_CHOICES = 25
MAX_CHOICE = 100
MAX_COMMAND_CHARS = 4000
#: Umpire's own bound per command, a margin under Discord's :data:`MAX_COMMAND_CHARS`.
COMMAND_BUDGET = 3600
MAX_COMMANDS = 100
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
#: The largest attachment a bot may send where the server has no boost (and in DMs).
ATTACHMENT_BYTES = 10 * 1024 * 1024


def size(payload: Mapping[str, Any]) -> int:
    """The characters Discord counts towards a command's 4,000."""
    total = len(payload.get("name", "")) + len(payload.get("description", ""))
    for choice in payload.get("choices") or []:
        total += len(str(choice.get("name", ""))) + len(str(choice.get("value", "")))
    for option in payload.get("options") or []:
        total += size(option)
    return total


def _check_named(where: str, item: Mapping[str, Any], problems: list[str]) -> None:
    name = str(item.get("name", ""))
    if not NAME.match(name) or name != name.lower():
        problems.append(f"{where}: name {name!r} is not 1-32 lower-case letters, digits, - or _")
    description = str(item.get("description", ""))
    if not 1 <= len(description) <= MAX_DESCRIPTION:
        problems.append(f"{where}: description has {len(description)} characters (1-100)")


def _check_options(where: str, options: Sequence[Mapping[str, Any]],
                   problems: list[str]) -> None:
    if len(options) > MAX_OPTIONS:
        problems.append(f"{where}: {len(options)} options (at most {MAX_OPTIONS})")
    nested = [o for o in options if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    if nested and len(nested) != len(options):
        problems.append(f"{where}: subcommands mixed with options")
    seen_optional = False
    names: set[str] = set()
    for option in options:
        here = f"{where} {option.get('name')}"
        _check_named(here, option, problems)
        if option.get("name") in names:
            problems.append(f"{here}: option name used twice")
        names.add(str(option.get("name")))
        if option.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
            _check_options(here, option.get("options") or [], problems)
            continue
        if option.get("required"):
            if seen_optional:
                problems.append(f"{here}: a required option after an optional one")
        else:
            seen_optional = True
        choices = option.get("choices") or []
        if len(choices) > MAX_CHOICES:
            problems.append(f"{here}: {len(choices)} choices (at most {MAX_CHOICES})")
        if choices and option.get("autocomplete"):
            problems.append(f"{here}: autocomplete and fixed choices together")
        for choice in choices:
            for key in ("name", "value"):
                text = str(choice.get(key, ""))
                if not 1 <= len(text) <= MAX_CHOICE:
                    problems.append(f"{here}: choice {key} {text[:20]!r}... has {len(text)} "
                                    f"characters (1-{MAX_CHOICE})")


def check(scopes: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[str]:
    """Every way these payloads (per scope: "global" or a server id) break Discord's
    limits; empty when Discord would accept them all."""
    problems: list[str] = []
    for scope, commands in scopes.items():
        slash = [c for c in commands if c.get("type", 1) == 1]
        if len(slash) > MAX_COMMANDS:
            problems.append(f"{scope}: {len(slash)} slash commands (at most {MAX_COMMANDS})")
        names = [str(c.get("name")) for c in slash]
        for name in sorted({n for n in names if names.count(n) > 1}):
            problems.append(f"{scope}: command /{name} registered twice")
        for command in commands:
            where = f"{scope} /{command.get('name')}"
            _check_named(where, command, problems)
            _check_options(where, command.get("options") or [], problems)
            total = size(command)
            if total > COMMAND_BUDGET:
                problems.append(f"{where}: {total} characters (at most {COMMAND_BUDGET}: "
                                f"Umpire's margin under Discord's {MAX_COMMAND_CHARS}, above "
                                "which Discord refuses the whole command set)")
    return problems


@dataclass(frozen=True)
class Fitted:
    """A file as it can be attached: itself, or gzipped (``note`` says so)."""

    name: str
    data: bytes
    note: str = ""


def megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB"


def fit_attachment(data: bytes, name: str, limit: int | None = None) -> Fitted | str:
    """``data`` as an attachment named ``name``: as it is when it fits ``limit`` (default
    :data:`ATTACHMENT_BYTES`), else gzipped (``NAME.gz``) when that fits; else the reason it
    cannot be sent (sizes and the limit), for the reply."""
    limit = ATTACHMENT_BYTES if limit is None else limit
    if len(data) <= limit:
        return Fitted(name, data)
    packed = gzip.compress(data, mtime=0)
    if len(packed) <= limit:
        return Fitted(f"{name}.gz", packed,
                      f"gzipped ({megabytes(len(data))} → {megabytes(len(packed))}; "
                      f"Discord takes at most {megabytes(limit)})")
    return (f"{name} is {megabytes(len(data))} ({megabytes(len(packed))} gzipped), more than "
            f"the {megabytes(limit)} Discord lets a bot attach")
