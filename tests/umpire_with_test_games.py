"""``python -m tests.umpire_with_test_games ARGS``: the ``umpire`` command with the test-only
games (Duel and its variants) registered, for tests that run Umpire in a subprocess. The
registry resolves registered names only, so a fresh process must register them in code."""

from __future__ import annotations

from bot.cli import app
from tests.bot import duel_variants, test_service_support  # noqa: F401  (they register)
from tests.kernel import duel  # noqa: F401

if __name__ == "__main__":
    app()
