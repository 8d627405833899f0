"""Databases for the tests, on both backends.

``db_url`` is a fresh, empty database per test, once for SQLite (a file in the test's
folder) and once for PostgreSQL (a new database on a throwaway server, copied from a
template migrated once per session, dropped when the test is done): a test that takes it
runs against both backends.
The server is the one ``.ci/run`` started (``$UMPIRE_TEST_POSTGRES``) or, without one, one
started here for the session; PostgreSQL tests skip, saying why, only when no server can be
started — and fail instead under ``.ci/run`` (``$UMPIRE_POSTGRES=required``).
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests import pgserver

BACKENDS = ("sqlite", "postgresql")


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


#: Migrated databases made ahead of the tests that take them (a copy takes the server
#: ~0.2 s, done in the background while a test runs).
AHEAD = 2


class PgDatabases:
    """Fresh databases on one server: each a copy of a template holding the migrated
    schema (made once per version of the migrations). A background connection makes the
    next few copies ahead and drops the databases of finished tests."""

    def __init__(self, url: str) -> None:
        import psycopg

        from bot.store import migrations

        self.url = url
        self.made: list[str] = []
        self._jobs: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._ready: queue.Queue[str | BaseException] = queue.Queue()
        self._background: threading.Thread | None = None
        self._failed: list[BaseException] = []
        digest = hashlib.sha256("".join(m.postgres for m in migrations.MIGRATIONS).encode())
        self.template = f"umpire_tpl_{digest.hexdigest()[:12]}"
        with psycopg.connect(url, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                  [self.template]).fetchone()
        if not exists:
            self._make_template()

    def _make_template(self) -> None:
        import psycopg

        from bot.store.postgres import PostgresStore

        building = f"{self.template}_{uuid.uuid4().hex[:6]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{building}"')
        PostgresStore(with_database(self.url, building)).close()
        with psycopg.connect(self.url, autocommit=True) as conn:
            try:
                conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{self.template}"')
            except psycopg.errors.DuplicateDatabase:  # another session made it meanwhile
                conn.execute(f'DROP DATABASE "{building}"')

    def _run(self) -> None:
        """The background connection: makes and drops databases, one job at a time."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while (job := self._jobs.get()) is not None:
                verb, name = job
                if verb == "make":
                    try:
                        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
                    except Exception as error:  # told to the test that takes it
                        self._ready.put(error)
                    else:
                        self._ready.put(name)
                else:
                    try:
                        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                    except Exception as error:  # raised at the end of the session
                        self._failed.append(error)

    def _make_later(self) -> None:
        name = f"umpire_t_{uuid.uuid4().hex[:12]}"
        self.made.append(name)
        self._jobs.put(("make", name))

    def new_url(self, *, migrated: bool = True) -> str:
        import psycopg

        if not migrated:
            name = f"umpire_t_{uuid.uuid4().hex[:12]}"
            with psycopg.connect(self.url, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "template0"')
            self.made.append(name)
            return with_database(self.url, name)
        if self._background is None:
            self._background = threading.Thread(target=self._run, name="pg databases",
                                                daemon=True)
            self._background.start()
            for _ in range(AHEAD):
                self._make_later()
        self._make_later()  # the next test's, while this one runs
        made = self._ready.get(timeout=120)
        if isinstance(made, BaseException):
            raise made
        return with_database(self.url, made)

    def drop(self, *urls: str) -> None:
        """Drop databases made here (as soon as their test is done: a database left until
        the end of the session is ~8 MB the server writes out and deletes at the end)."""
        import psycopg

        names = [urlsplit(url).path.lstrip("/") for url in urls]
        names = [name for name in names if name in self.made]
        for name in names:
            self.made.remove(name)
        if self._background is not None:
            for name in names:
                self._jobs.put(("drop", name))
        elif names:
            with psycopg.connect(self.url, autocommit=True) as conn:
                for name in names:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self, *, drop: bool) -> None:
        """Finish the background jobs (dropping every database made here: ``drop``)."""
        if drop:
            self.drop(*(with_database(self.url, name) for name in self.made))
        if self._background is not None:
            self._jobs.put(None)
            self._background.join(timeout=120)
            self._background = None
        if self._failed:
            raise self._failed[0]


def _required() -> bool:
    return os.environ.get(pgserver.REQUIRED_ENV) == "required"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of a PostgreSQL server the tests may create databases on."""
    url = os.environ.get(pgserver.URL_ENV)
    if url:
        yield url
        return
    try:
        server = pgserver.start()
    except Exception as error:
        detail = " ".join(str(getattr(error, "stderr", b"") or b"", "utf-8", "replace").split())
        reason = f"PostgreSQL could not be started: {error} {detail}".strip()
        if _required():
            pytest.fail(reason + " (and .ci/run requires it)")
        pytest.skip(reason + " — install it (`apt-get install postgresql`) to run these")
    try:
        yield server.url
    finally:
        pgserver.stop(server.folder)


@pytest.fixture(scope="session")
def pg_databases(pg_server: str) -> Iterator[PgDatabases]:
    databases = PgDatabases(pg_server)
    try:
        yield databases
    finally:
        # A server the tests started goes away with its folder; only a server given in
        # the environment keeps what the tests made, so only there are they dropped.
        databases.close(drop=bool(os.environ.get(pgserver.URL_ENV)))


def sqlite_url(path: Path) -> str:
    return f"sqlite://{path}"


class NewDb:
    """Makes fresh, migrated databases of one backend for one test (``new_db()``)."""

    def __init__(self, backend: str, folder: Path, request: pytest.FixtureRequest) -> None:
        self.backend = backend
        self.folder = folder
        self.request = request
        self.urls: list[str] = []

    def __call__(self, name: str = "umpire") -> str:
        if self.backend == "sqlite":
            url = sqlite_url(self.folder / f"{name}-{len(self.urls)}.db")
        else:
            databases: PgDatabases = self.request.getfixturevalue("pg_databases")
            url = databases.new_url()
        self.urls.append(url)
        return url

    def close(self) -> None:
        if self.backend == "postgresql":
            from bot.store.postgres import close_stores

            for url in self.urls:
                close_stores(url)
            databases: PgDatabases = self.request.getfixturevalue("pg_databases")
            databases.drop(*self.urls)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each backend in turn: a test taking it (or ``new_db``, ``db_url``) runs on both."""
    return str(request.param)


@pytest.fixture
def new_db(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[NewDb]:
    """``new_db()``: a fresh, migrated database of the test's backend, as a URL."""
    factory = NewDb(backend, tmp_path, request)
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture
def db_url(new_db: NewDb) -> str:
    """A fresh, migrated database: once on SQLite, once on PostgreSQL."""
    return new_db()


@pytest.fixture
def pg_url(pg_databases: PgDatabases) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database (for tests of PostgreSQL alone)."""
    url = pg_databases.new_url()
    try:
        yield url
    finally:
        from bot.store.postgres import close_stores

        close_stores(url)
        pg_databases.drop(url)
