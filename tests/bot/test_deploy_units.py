"""The systemd units of docs/deploy.md's multi-process set-up pass ``systemd-analyze
verify`` (with the installed ``umpire`` in place of /opt/umpire's), and say what the docs
say they do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNITS = Path(__file__).resolve().parents[2] / "deploy" / "systemd"
INSTALLED = "/opt/umpire/.venv/bin/umpire"


def test_the_units_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    umpire = Path(sys.executable).parent / "umpire"
    assert umpire.exists()
    for unit in UNITS.iterdir():
        text = unit.read_text(encoding="utf-8").replace(INSTALLED, str(umpire))
        for tool in ("/usr/bin/pg_dump", "/usr/bin/find"):
            if not Path(tool).exists():
                text = text.replace(tool, "/bin/true")
        (tmp_path / unit.name).write_text(text, encoding="utf-8")
    names = ["umpire.target", "umpire-migrate.service", "umpire-bot@0-1.service",
             "umpire-bot@2-3.service", "umpire-mail@1.service", "umpire-backup.service",
             "umpire-backup.timer"]
    run = subprocess.run([analyze, "verify", "--man=no", *names], capture_output=True,
                         text=True, env={**os.environ, "SYSTEMD_UNIT_PATH": f"{tmp_path}:"},
                         timeout=60)
    complaints = [line for line in (run.stdout + run.stderr).splitlines()
                  if str(tmp_path) in line or "umpire" in line]
    assert run.returncode == 0 and complaints == [], run.stdout + run.stderr


def test_the_units_run_what_the_docs_describe() -> None:
    bot = (UNITS / "umpire-bot@.service").read_text(encoding="utf-8")
    assert f"{INSTALLED} bot --shards ${{UMPIRE_SHARDS}} --shard-ids %i" in bot
    assert "Requires=umpire-migrate.service" in bot
    assert f"{INSTALLED} db migrate" in (UNITS / "umpire-migrate.service").read_text()
    assert "umpire-bot@0-1.service umpire-bot@2-3.service" in (UNITS / "umpire.target"
                                                                ).read_text()
    docs = (UNITS.parents[1] / "docs" / "deploy.md").read_text(encoding="utf-8")
    for name in ("umpire-bot@.service", "umpire-mail@.service", "umpire-migrate.service",
                 "umpire.target", "umpire-backup.timer", "umpire db copy", "pg_dump"):
        assert name in docs, name
