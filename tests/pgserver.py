"""A throwaway PostgreSQL server on loopback for the tests (Debian's PostgreSQL packages).

``initdb`` makes a cluster in a temporary folder, ``pg_ctl`` starts it on a free loopback
port with no Unix socket, and a login role ``umpire`` with a password owns a database of
the same name; the tests connect to it with a ``postgresql://`` URL like any deployment.
The server runs as the current user, or — when that is root, which PostgreSQL refuses —
as the ``postgres`` system user (created by Debian's package) through ``runuser``.

As a program (what ``.ci/run`` does)::

    python -m tests.pgserver start FOLDER   # prints the URL on its last line
    python -m tests.pgserver stop FOLDER
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: Environment variable holding the URL of a server the tests may use (set by .ci/run).
URL_ENV = "UMPIRE_TEST_POSTGRES"
#: Set to ``required`` (by .ci/run): a test that needs PostgreSQL fails instead of skipping.
REQUIRED_ENV = "UMPIRE_POSTGRES"
ROLE = "umpire"


def binaries() -> Path | None:
    """The folder of ``initdb``/``pg_ctl``: the newest of Debian's, else the PATH's."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PgServer:
    folder: Path
    port: int
    password: str

    @property
    def url(self) -> str:
        return f"postgresql://{ROLE}:{self.password}@127.0.0.1:{self.port}/{ROLE}"

    def admin_url(self, database: str = ROLE) -> str:
        return f"postgresql://{ROLE}:{self.password}@127.0.0.1:{self.port}/{database}"


def _as_owner(command: list[str]) -> list[str]:
    """Run as the server's owner: the current user, or ``postgres`` when we are root."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


def _owner() -> tuple[int, int] | None:
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError as error:
        raise RuntimeError("running as root needs the 'postgres' system user (Debian's "
                           "postgresql package creates it)") from error
    return entry.pw_uid, entry.pw_gid


def start(folder: Path | None = None, *, durable: bool = False, timeout: float = 60.0
          ) -> PgServer:
    """Make and start a cluster in ``folder`` (a new temporary folder by default).

    ``durable=False`` (tests) turns fsync off: the tests kill clients, never the server,
    and nothing here must survive the machine. Benchmarks pass ``durable=True``.
    """
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (no initdb): `apt-get install "
                           "postgresql` (.ci/run installs it)")
    folder = Path(folder or tempfile.mkdtemp(prefix="umpire-pg-"))
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data"
    password = secrets.token_hex(12)
    pwfile = folder / "pwfile"
    pwfile.write_text(password + "\n")
    owner = _owner()
    if owner is not None:
        for path in (folder, pwfile):
            os.chown(path, *owner)
    subprocess.run(_as_owner([str(bin_dir / "initdb"), "-D", str(data), "-U", ROLE,
                              f"--pwfile={pwfile}", "--auth=scram-sha-256", "-E", "UTF8",
                              "--locale=C.UTF-8", "--no-instructions"]),
                   check=True, capture_output=True, timeout=timeout)
    pwfile.unlink()
    port = free_port()
    options = [f"-p {port}", "-c listen_addresses=127.0.0.1", "-c unix_socket_directories=''",
               "-c max_connections=200", "-c shared_buffers=64MB"]
    if not durable:
        options += ["-c fsync=off", "-c full_page_writes=off"]
    subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-l",
                              str(folder / "server.log"), "-o", " ".join(options), "-w",
                              "-t", str(int(timeout)), "start"]),
                   check=True, capture_output=True, timeout=timeout + 10)
    server = PgServer(folder, port, password)
    (folder / "url").write_text(server.url + "\n")
    _wait(server, timeout)
    import psycopg  # the tests' dependency, imported only when a server is made

    with psycopg.connect(server.admin_url("postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {ROLE}")
    return server


def _wait(server: PgServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(
                ("127.0.0.1", server.port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"PostgreSQL does not listen on 127.0.0.1:{server.port}")


def stop(folder: Path) -> None:
    bin_dir = binaries()
    data = folder / "data"
    if bin_dir is not None and (data / "postmaster.pid").exists():
        subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                                  "-w", "stop"]), capture_output=True, timeout=60)
    shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m tests.pgserver start|stop FOLDER", file=sys.stderr)
        return 2
    folder = Path(argv[1])
    if argv[0] == "stop":
        stop(folder)
        return 0
    try:
        server = start(folder)
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", b"") or b""
        print(f"PostgreSQL could not be started: {error} {detail.decode(errors='replace')}",
              file=sys.stderr)
        return 1
    print(server.url)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
