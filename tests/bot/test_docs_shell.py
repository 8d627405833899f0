"""Every shell block of docs/deploy.md, docs/discord.md and docs/email.md is run (issue 24),
in order, on a stand-in machine: the deploy layout's folders (``/opt/umpire``,
``/etc/umpire``, ``/var/lib/umpire``, ``/var/backups``, ``/etc/systemd``) under a temporary
root, PostgreSQL from tests/pgserver, the fake Discord, a loopback mail set-up.

What cannot run here is substituted, block by block (:func:`_substituted`,
tests/bot/docs_tools.py):

* ``git clone "$UMPIRE_REPOSITORY"`` clones this repository (its last commit);
  ``uv sync --frozen`` installs, as ``.venv/bin/umpire``, the real ``umpire`` command with
  discord.py pointed at the fake Discord (no network here; the test's own virtualenv);
* ``useradd`` is skipped and ``install -o umpire -g umpire`` owns by the test's user (no
  root here);
* ``systemctl enable --now`` runs each unit's ExecStart directly (EnvironmentFile read,
  ``%i`` and ``${VAR}`` expanded; ``User=`` ignored), ``systemctl stop`` and
  ``daemon-reload`` do nothing, ``journalctl -f`` prints the units' output once;
* placeholders get the test's values: the token, ``YOUR_SERVER_ID`` (the fake's server),
  the PostgreSQL host, port and superuser, a fresh role name instead of ``umpire`` (the
  test server's superuser is called so), the passwords typed at ``--pwprompt``.

The default run stops deploy.md before its two multi-process blocks (the shards, the
units); the soak run runs them, with one bot and one gateway for the units block, then with
the whole ``umpire.target``.

A block that runs a long-running process (the bot, the gateway) is stopped by SIGTERM once
the process is ready (the bot's health record says connected; the gateway holds
``mail:leader``), and must stop cleanly. A new shell block in these docs fails the test
until it is given a runner here."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from bot import health
from bot.service import Actor, GameService
from bot.store import Store, StoreError
from tests.bot.docs_tools import rooted
from tests.fakediscord.server import FakeDiscord
from tests.mail.servers import free_port

REPO = Path(__file__).resolve().parents[2]
#: Generous bounds for a busy machine.
READY_S = 180.0
STOP_S = 60.0
RUN_S = 300.0
SHORT_UNITS = "umpire-migrate.service umpire-bot@0-1.service umpire-mail@1.service"


def shell_blocks(doc: str) -> list[str]:
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


class Machine:
    """The stand-in server: a root folder, the shims, the environment of the blocks."""

    def __init__(self, tmp: Path, fake: FakeDiscord | None) -> None:
        self.root = tmp / "root"
        self.work = tmp / "work"
        shims = tmp / "shims"
        for folder in (self.root, self.work, shims):
            folder.mkdir(parents=True, exist_ok=True)
        for tool in ("systemctl", "journalctl"):
            self._script(shims / tool, f'exec "{sys.executable}" -P -m tests.bot.docs_tools '
                                       f'{tool} "$@"')
        self._script(shims / "useradd", 'echo "useradd (test): skipped, no root here"')
        self.umpire = tmp / "umpire"
        self._script(self.umpire, f'exec "{sys.executable}" -P -m tests.bot.docs_tools umpire "$@"')
        self.env = {**os.environ, "PATH": f"{shims}:{os.environ['PATH']}",
                    "PYTHONPATH": str(REPO), "DOCS_ROOT": str(self.root),
                    "DOCS_UMPIRE": str(self.umpire), "UMPIRE_REPOSITORY": str(REPO),
                    "PYTHONUNBUFFERED": "1", "DISCORD_TOKEN": "token"}
        for name in ("UMPIRE_DB", "PGHOST", "PGPORT", "PGUSER", "PGPASSWORD"):
            self.env.pop(name, None)
        if fake is not None:
            self.env.update(DOCS_FAKE_REST=fake.rest_base, DOCS_FAKE_GATEWAY=fake.gateway_url)
        self.guild = fake.guild_id if fake is not None else 0

    @staticmethod
    def _script(path: Path, line: str) -> None:
        path.write_text(f"#!/bin/sh\n{line}\n", encoding="utf-8")
        path.chmod(0o755)

    def path(self, layout_path: str) -> Path:
        return Path(rooted(layout_path, str(self.root)))

    def layout(self) -> None:
        """The folders the layout block makes (for the docs that assume them)."""
        for folder in ("/var/lib/umpire", "/var/backups/umpire", "/etc/umpire"):
            self.path(folder).mkdir(parents=True, exist_ok=True)

    def mail_toml(self, where: Path) -> Path:
        where.write_text('address = "umpire@example.org"\n[smtp]\nhost = "127.0.0.1"\n'
                         f'port = {free_port()}\ntls = "none"\n[listen]\nhost = "127.0.0.1"\n'
                         f'port = {free_port()}\n', encoding="utf-8")
        return where

    def _substituted(self, block: str, more: dict[str, str]) -> str:
        text = rooted(block, str(self.root))
        pairs = {"uv sync --frozen": 'install -D -m 0755 "$DOCS_UMPIRE" .venv/bin/umpire',
                 "-o umpire -g umpire ": "", "uv run umpire": '"$DOCS_UMPIRE"',
                 "DISCORD_TOKEN=...": "DISCORD_TOKEN=token", "PASSWORD=...": "PASSWORD=pw",
                 "YOUR_SERVER_ID": str(self.guild), **more}
        for old, new in pairs.items():
            text = text.replace(old, new)
        return text

    def start(self, block: str, cwd: Path | None = None, env: dict[str, str] | None = None,
              stdin: str | None = None, **more: str) -> subprocess.Popen[str]:
        return subprocess.Popen(["bash", "-euo", "pipefail", "-c",
                                 self._substituted(block, more)],
                                cwd=cwd or self.work, env={**self.env, **(env or {})},
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)

    async def run(self, block: str, cwd: Path | None = None,
                  env: dict[str, str] | None = None, stdin: str | None = None,
                  **more: str) -> str:
        """Run a block to its end; its output (a failure fails the test)."""
        process = self.start(block, cwd, env, stdin, **more)
        output, _ = await asyncio.to_thread(process.communicate, stdin, RUN_S)
        assert process.returncode == 0, f"{block}\n---\n{output}"
        return output

    async def serve(self, block: str, ready: Callable[[], bool], cwd: Path | None = None,
                    env: dict[str, str] | None = None, **more: str) -> str:
        """Run a block of long-running processes until ``ready``, stop them with SIGTERM
        (the whole process group, as systemd stops a unit's processes) and wait for them
        to end; their output."""
        process = self.start(block, cwd, env, None, **more)
        assert process.stdin is not None
        process.stdin.close()
        reader = asyncio.create_task(asyncio.to_thread(process.stdout.read))  # type: ignore[union-attr]
        try:
            deadline = time.monotonic() + READY_S
            while not await asyncio.to_thread(ready):
                if reader.done() and process.poll() not in (None, 0):
                    pytest.fail(f"the block failed: {block}\n---\n{reader.result()}")
                assert time.monotonic() < deadline, f"never ready: {block}\n{self.logs()}"
                await asyncio.sleep(0.5)
        finally:
            with _gone():
                os.killpg(process.pid, signal.SIGTERM)
            deadline = time.monotonic() + STOP_S
            while _group_alive(process):
                if time.monotonic() > deadline:
                    os.killpg(process.pid, signal.SIGKILL)
                    pytest.fail(f"not stopped within {STOP_S} s: {block}")
                await asyncio.sleep(0.2)
        return await asyncio.wait_for(reader, STOP_S) + self.logs()

    def logs(self) -> str:
        run = self.root / "run"
        return "".join(log.read_text(encoding="utf-8", errors="replace")
                       for log in sorted(run.glob("*.log"))) if run.exists() else ""


class _gone:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, *_: Any) -> bool:
        return kind is not None and issubclass(kind, ProcessLookupError)


def _group_alive(process: subprocess.Popen[str]) -> bool:
    process.poll()  # reap the block's shell once it ended (a zombie would count)
    try:
        os.killpg(process.pid, 0)
    except ProcessLookupError:
        return False
    return True


def _looking(db: str, what: Callable[[Store], bool]) -> Callable[[], bool]:
    """A readiness check on the processes' store; a store not made yet (or being made:
    an empty file) is not ready."""
    def check() -> bool:
        if "://" not in db and not Path(db).exists():
            return False
        try:
            store = Store(db)
        except StoreError:
            return False
        try:
            return what(store)
        finally:
            store.close()
    return check


def _connected(db: str, count: int) -> Callable[[], bool]:
    return _looking(db, lambda store: sum(
        1 for r in health.records(store) if r.get("connected")) >= count)


def _leader(db: str) -> Callable[[], bool]:
    return _looking(db, lambda store: store.lease_holder("mail:leader") is not None)


def _both(*checks: Callable[[], bool]) -> Callable[[], bool]:
    return lambda: all(check() for check in checks)


def _one_game(db: str) -> None:
    service = GameService(Store(db))
    try:
        service.create_game(Actor.discord(1), "tanks", game_id="docsgame")
    finally:
        service.store.close()


def _expect(blocks: list[str], *starts: str) -> None:
    """The blocks, in order, are the ones this test runs (a new one needs a runner)."""
    assert len(blocks) == len(starts), f"shell blocks changed: {blocks}"
    for block, start in zip(blocks, starts, strict=True):
        assert start in block, f"no runner for this shell block: {block}"


async def test_the_shell_blocks_of_discord_md_run(tmp_path: Path) -> None:
    blocks = shell_blocks("discord.md")
    _expect(blocks, "umpire bot --guild", "umpire bot --check-commands", "sqlite3")
    fake = FakeDiscord()
    await fake.start()
    try:
        machine = Machine(tmp_path, fake)
        machine.layout()
        db = str(machine.path("/var/lib/umpire/umpire.db"))
        out = await machine.serve(blocks[0], _connected(db, 1), env={"UMPIRE_DB": db})
        assert "stopped in" in out and "released leases" in out, out
        assert "\x1b" not in out  # the log is no terminal: no colour codes
        out = await machine.run(blocks[1])
        assert "0 problems" in out
        await machine.run(blocks[2])
        assert list(machine.path("/var/backups/umpire").glob("umpire-*.db"))
    finally:
        await fake.stop()


async def test_the_shell_blocks_of_email_md_run(tmp_path: Path) -> None:
    blocks = shell_blocks("email.md")
    _expect(blocks, "umpire mail --config mail.toml")
    machine = Machine(tmp_path, None)
    machine.mail_toml(machine.work / "mail.toml")
    db = str(tmp_path / "mail.db")
    out = await machine.serve(blocks[0], _leader(db), env={"UMPIRE_DB": db})
    assert "released leases: mail:leader" in out, out


async def _deploy(tmp_path: Path, pg_url: str, pg_server: str, units: str | None) -> None:
    """deploy.md's blocks in order; ``units``: the units the units block starts ("": the
    whole target; None: the short run, which stops before the shards and the units)."""
    blocks = shell_blocks("deploy.md")
    _expect(blocks, "git clone", "umpire bot --db", "sqlite3", "createuser --pwprompt",
            "umpire db copy", "--shards 4 --shard-ids 0-1", "systemctl enable --now")
    fake, sharded = FakeDiscord(), FakeDiscord(shards=4)
    await fake.start()
    await sharded.start()
    shards = {"DOCS_FAKE_REST": sharded.rest_base, "DOCS_FAKE_GATEWAY": sharded.gateway_url}
    try:
        machine = Machine(tmp_path, fake)
        checkout = machine.path("/opt/umpire")
        out = await machine.run(blocks[0])  # the layout
        assert "Usage: umpire" in out
        env_file = machine.path("/etc/umpire/umpire.env")
        assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
        env_file.write_text(f"DISCORD_TOKEN=token\nUMPIRE_DB={pg_url}\nUMPIRE_SHARDS=4\n",
                            encoding="utf-8")  # "then edit /etc/umpire/umpire.env"
        sqlite = str(machine.path("/var/lib/umpire/umpire.db"))
        out = await machine.serve(blocks[1], _connected(sqlite, 1))
        assert "stopped in" in out, out
        await machine.run(blocks[2])
        assert list(machine.path("/var/backups/umpire").glob("umpire-*.db"))

        server = urlsplit(pg_server)
        role = f"docs_{secrets.token_hex(4)}"
        await machine.run(
            blocks[3], stdin="role-pw\nrole-pw\n", env={"PGPASSWORD": server.password or ""},
            **{"PGHOST=db.internal PGPORT=5432 PGUSER=postgres":
               f"PGHOST={server.hostname} PGPORT={server.port} PGUSER={server.username}",
               "--pwprompt umpire": f"--pwprompt {role}",
               "--owner umpire umpire": f"--owner {role} {role}"})
        made = f"postgresql://{role}:role-pw@{server.hostname}:{server.port}/{role}"
        with psycopg.connect(made) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (role,)
        with psycopg.connect(pg_server.rsplit("/", 1)[0] + "/postgres",
                             autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {role}")
            conn.execute(f"DROP ROLE {role}")

        _one_game(sqlite)
        out = await machine.run(blocks[4], env={"UMPIRE_DB": pg_url})
        assert "verified" in out, out
        if units is None:
            return
        out = await machine.serve(blocks[5], _connected(pg_url, 2),
                                  env={"UMPIRE_DB": pg_url, **shards})
        assert out.count("stopped in") == 2, out
        machine.path("/etc/systemd/system").mkdir(parents=True)
        machine.mail_toml(machine.path("/etc/umpire/mail.toml"))
        bots = len(re.findall(r"umpire-bot@", units)) if units else 2
        out = await machine.serve(blocks[6], _both(_connected(pg_url, bots), _leader(pg_url)),
                                  cwd=checkout, env={"DOCS_UNITS": units, **shards})
        assert "stopped in" in out and "released leases" in out, out
        assert list(machine.path("/var/backups/umpire").glob("umpire-*.dump"))
    finally:
        await fake.stop()
        await sharded.stop()


async def test_the_shell_blocks_of_deploy_md_run_up_to_the_shards(
        tmp_path: Path, pg_url: str, pg_server: str) -> None:
    await _deploy(tmp_path, pg_url, pg_server, None)


@pytest.mark.soak
async def test_the_shell_blocks_of_deploy_md_run(tmp_path: Path, pg_url: str,
                                                 pg_server: str) -> None:
    await _deploy(tmp_path, pg_url, pg_server, SHORT_UNITS)


@pytest.mark.soak
async def test_the_shell_blocks_of_deploy_md_run_the_whole_target(
        tmp_path: Path, pg_url: str, pg_server: str) -> None:
    await _deploy(tmp_path, pg_url, pg_server, "")
