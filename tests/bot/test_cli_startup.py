"""Start-up: the ``umpire`` command imports only what the command run uses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LOADED = """
import sys
from pathlib import Path
from typer.testing import CliRunner
from bot.cli import app
result = CliRunner().invoke(app, sys.argv[1:], input="quit\\n")
assert result.exit_code == 0, result.output
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def loaded(*args: str) -> set[str]:
    """The top-level packages a fresh process has imported after running ``umpire ARGS``."""
    done = subprocess.run([sys.executable, "-c", LOADED, *args], capture_output=True,
                          text=True, check=True)
    return set(done.stdout.split())


def test_help_loads_neither_the_rules_nor_the_store_nor_rich() -> None:
    assert {"adjudicator", "pydantic", "sqlite_utils", "rich", "PIL", "discord", "render",
            "imap_tools"}.isdisjoint(loaded("--help"))


def test_play_loads_no_frontend_it_does_not_use(tmp_path: Path) -> None:
    used = loaded("play", "tanks", "--scenario", "pakfront", "--db", f"{tmp_path}/u.db")
    assert {"adjudicator", "bot", "sqlite_utils"} <= used
    assert {"discord", "PIL", "render", "imap_tools", "aiosmtpd"}.isdisjoint(used)
