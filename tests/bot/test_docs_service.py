"""docs/service.md tells the truth about the store (issue 24): its schema heading names the
version this Umpire writes, and its table lists every table a new store has."""

from __future__ import annotations

import re
from pathlib import Path

from bot.store import Store
from bot.store.migrations import MIGRATIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "service.md"


def test_the_schema_section_names_the_current_version_and_every_table(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    heading = re.search(r"^## Schema \(version (\d+)\)$", text, re.MULTILINE)
    assert heading is not None and int(heading.group(1)) == len(MIGRATIONS)
    documented = set(re.findall(r"^\| `(\w+)` \|", text, re.MULTILINE))
    store = Store(tmp_path / "new.db")
    try:
        tables = {str(r["name"]) for r in store.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    finally:
        store.close()
    assert tables - {"schema_migrations"} <= documented, tables - documented
    assert "schema_migrations" in text
    for migration in MIGRATIONS:
        assert re.search(rf"\b{migration.version} ", text.split("Versions:", 1)[1]), migration
