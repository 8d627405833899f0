"""Collect every conformance case as its own test: the games' rulebook cases under
tests/conformance/ and the contract game's (Duel, not shipped) under tests/kernel/cases/."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from adjudicator.kernel.conformance import load_case, run_case
from adjudicator.kernel.game import Game
from adjudicator.registry import load_game

# The test-only games register themselves when imported (the registry imports nothing a
# name names): import them here so conformance cases and CLI runs can look them up.
from tests.bot import duel_variants, test_service_support  # noqa: F401
from tests.dbs import backend, db_url, new_db, pg_databases, pg_server, pg_url  # noqa: F401
from tests.hypothesis_profiles import load_default_run_profile
from tests.kernel import duel  # noqa: F401

load_default_run_profile()

CONFORMANCE = Path(__file__).parent / "conformance"
DUEL_CASES = Path(__file__).parent / "kernel" / "cases"


@cache
def cached_game(name: str) -> Game[Any]:
    return load_game(name)


@pytest.fixture(autouse=True)
def _no_log_handler_outlives_its_test() -> Iterator[None]:
    """A test that runs ``umpire bot``, ``mail`` or ``web`` through a CLI runner has the
    root logger write to the runner's stream (``bot.logs.configure``), closed once the
    command returns: a later test's log line would then print "Logging error" into its own
    captured output. The handlers ``configure`` added during the test go with it, and the
    level it set."""
    from bot.logs import LineFormatter

    root = logging.getLogger()
    before, level = set(root.handlers), root.level
    yield
    added = [h for h in root.handlers
             if h not in before and isinstance(h.formatter, LineFormatter)]
    for handler in added:
        root.removeHandler(handler)
    if added:
        root.setLevel(level)


class CaseFile(pytest.File):
    def collect(self) -> list[pytest.Item]:
        return [CaseItem.from_parent(self, name=self.path.stem)]


class CaseItem(pytest.Item):
    def runtest(self) -> None:
        case = load_case(self.path)
        result = run_case(case, cached_game, str(self.path))
        if not result.passed:
            raise CaseFailed(result.title, result.source, result.failures)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailed):
            title, source, failures = excinfo.value.args
            return f"{title} ({source})\n" + "\n".join(f"  - {f}" for f in failures)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"conformance: {self.name}"


class CaseFailed(Exception):
    pass


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix == ".toml" and (CONFORMANCE in file_path.parents
                                        or DUEL_CASES in file_path.parents):
        return CaseFile.from_parent(parent, path=file_path)
    return None
