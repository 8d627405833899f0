"""Stand-ins for what the docs' shell blocks run and a test machine cannot (for
tests/bot/test_docs_shell.py), as programs: ``python -m tests.bot.docs_tools TOOL ARGS``.

* ``umpire``: the real ``umpire`` command, with discord.py pointed at the fake Discord named
  by ``$DOCS_FAKE_REST`` and ``$DOCS_FAKE_GATEWAY`` (this machine cannot reach Discord).
* ``systemctl``: ``stop`` and ``daemon-reload`` do nothing (no unit runs under systemd
  here); ``enable --now UNIT…`` runs each unit's ExecStart directly, as systemd would — a
  target's ``Wants=`` in turn (only those named in ``$DOCS_UNITS`` when set: the short
  run), a oneshot's lines in order, a timer's service at once, any other service in the
  background (its pid in ``$DOCS_ROOT/run/pids``, its output in ``run/UNIT.log``), with the
  unit's EnvironmentFile read and ``%i``, ``%%`` and ``${VAR}`` expanded.
* ``journalctl``: prints the units' output so far and exits (no following).

Paths of the deploy layout (``/opt/umpire``, ``/etc/umpire``, …) are read under
``$DOCS_ROOT`` (:func:`rooted`).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

#: The layout's folders, moved under the test's root.
LAYOUT = ("/opt/umpire", "/etc/umpire", "/var/lib/umpire", "/var/backups", "/etc/systemd")


def rooted(text: str, root: str) -> str:
    """``text`` with every path of the layout moved under ``root``."""
    for path in LAYOUT:
        text = text.replace(path, root + path)
    return text


def _umpire(args: list[str]) -> int:
    rest, gateway = os.environ.get("DOCS_FAKE_REST"), os.environ.get("DOCS_FAKE_GATEWAY")
    if rest and gateway:
        import discord
        import yarl

        discord.http.Route.BASE = rest
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    from bot.cli import app

    app(args, prog_name="umpire")
    return 0


def _unit(root: Path, name: str) -> tuple[str, str | None, dict[str, list[str]]]:
    """(file name, instance, its keys) of a unit (``umpire-bot@0-1.service``)."""
    base, instance = name, None
    match = re.fullmatch(r"(.+@)(.+)(\.\w+)", name)
    if match:
        base, instance = match.group(1) + match.group(3), match.group(2)
    keys: dict[str, list[str]] = {}
    text = rooted((root / "etc/systemd/system" / base).read_text(encoding="utf-8"), str(root))
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), []).append(value.strip())
    return base, instance, keys


def _expand(command: str, instance: str | None, env: dict[str, str]) -> list[str]:
    command = command.replace("%i", instance or "")
    command = re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), command)
    return [part.replace("%%", "%") for part in shlex.split(command)]


def _environment(keys: dict[str, list[str]]) -> dict[str, str]:
    env = dict(os.environ)
    for path in keys.get("EnvironmentFile", []):
        for line in Path(path.lstrip("-")).read_text(encoding="utf-8").splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                key, _, value = line.partition("=")
                env[key.strip()] = value.strip()
    return env


def _start(root: Path, name: str, wanted: set[str] | None) -> None:
    if wanted is not None and name not in wanted:
        print(f"systemctl (test): {name} not started in the short run")
        return
    _, instance, keys = _unit(root, name)
    if name.endswith(".target"):
        for line in keys.get("Wants", []):
            for unit in line.split():
                _start(root, unit, wanted)
        return
    if name.endswith(".timer"):
        _start(root, name.removesuffix(".timer") + ".service", None)
        return
    env = _environment(keys)
    cwd = keys.get("WorkingDirectory", [str(root)])[0]
    run = root / "run"
    run.mkdir(exist_ok=True)
    if keys.get("Type", [""])[0] == "oneshot":
        for command in keys.get("ExecStart", []):
            subprocess.run(_expand(command, instance, env), cwd=cwd, env=env, check=True)
        return
    (command,) = keys["ExecStart"]
    log = (run / f"{name}.log").open("ab")
    process = subprocess.Popen(_expand(command, instance, env), cwd=cwd, env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    with (run / "pids").open("a", encoding="utf-8") as pids:
        pids.write(f"{process.pid} {name}\n")


def _systemctl(args: list[str]) -> int:
    root = Path(os.environ["DOCS_ROOT"])
    if args[:2] == ["enable", "--now"]:
        only = os.environ.get("DOCS_UNITS")
        wanted = set(only.split()) if only else None
        for name in args[2:]:
            _start(root, name, None if name.endswith(".timer") else
                   wanted | {name} if wanted is not None else None)
        return 0
    print(f"systemctl (test): {' '.join(args)}: nothing runs under systemd here")
    return 0


def _journalctl(args: list[str]) -> int:
    for log in sorted((Path(os.environ["DOCS_ROOT"]) / "run").glob("*.log")):
        print(f"-- {log.stem}")
        print(log.read_text(encoding="utf-8", errors="replace"))
    return 0


def main(argv: list[str]) -> int:
    tool, args = argv[0], argv[1:]
    return {"umpire": _umpire, "systemctl": _systemctl, "journalctl": _journalctl}[tool](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
