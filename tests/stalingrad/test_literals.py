"""The data pack is the only source of numbers (docs/data-stalingrad.md): no rulebook number
in the rules engine's code.

The test reads every module of ``adjudicator/stalingrad/`` but the pack loader (``data.py``,
``data_check.py`` — which holds the rulebook's facts to check a pack against — and
``data_models/``) and lists each number literal outside docstrings, comments and strings.
What may stay is decided here, each with its reason:

* 0 and 1 anywhere: nothing, one, the first, one step (a "+1 for each ..." modifier counts
  units; its size is the rule's unit, not a value a GM's pack could correct);
* a slice bound (``legal[:12]``) or a constant subscript (``key[2]``): how many options a
  message quotes, a position in a tuple;
* :data:`ALLOWED`, by module and value.

Everything else must come from the pack (``ctx.board.tables``, ``ctx.board.calendar``,
the scenario).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "adjudicator" / "stalingrad"
LOADER = {"data.py", "data_check.py"}
#: (module, value) -> why the number is not a rulebook value a pack should hold.
ALLOWED: dict[tuple[str, int | float], str] = {
    ("advantage.py", 2): "the dice roller's default: a DR is two dice (Glossary)",
    ("advantage.py", 6): "the dice roller's default: six-sided dice (Glossary)",
    ("board.py", 9): "the month number of date codes (S = September)",
    ("board.py", 10): "the month number of date codes (O = October)",
    ("board.py", 11): "the month number of date codes (N = November)",
    ("board.py", 12): "the month number of date codes (D = December)",
    ("bombardment.py", 2): "parity: Stuka attacks on odd-numbered days (the Sawmill's 5)",
    ("crossing.py", 2): "'both adjacent River Bank Areas' (the Interdiction table, 18.4)",
    ("losses.py", 2): "a Contested retreat into a friendly-controlled Area rolls a DR, two "
                      "dice (8.3552; a dr into an enemy-controlled one)",
    ("movement.py", 2): "doubled MF (8.25)",
    ("odds.py", 2): "a Ranged attack's doubled TEM (8.352A); AA's halved Defense (8.352)",
    ("game.py", 64): "a cache size (how many local boards are kept), not a rule",
    ("views.py", 16): "a cache size (Area views), not a rule",
    ("views.py", 5000): "a cache size (view parts), not a rule",
    ("views.py", 64): "a cache size (the units' orders kept per board), not a rule",
    ("legal.py", 12): "how many legal orders a refusal's hint names (HINT), not a rule",
    ("legal.py", 20): "how many waiting units the sampled set-up listing places "
                      "(SETUP_SAMPLE), not a rule",
    ("legal.py", 400): "the legal list's size limit (MAX_ORDERS), not a rule",
    ("optional.py", 99): "the bid's input bound (22.11: any whole number; a bound keeps the "
                         "input sane), not a rule",
}


def literals(source: str) -> list[tuple[int, int | float]]:
    """(line, value) of every number literal of ``source`` that is neither 0/1, nor a slice
    bound or a constant subscript (strings, docstrings and comments hold none)."""
    tree = ast.parse(source)
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Slice):
            skip.update(id(n) for part in (node.lower, node.upper, node.step) if part is not None
                        for n in ast.walk(part))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            skip.add(id(node.slice))
    found: list[tuple[int, int | float]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                and not isinstance(node.value, bool) and id(node) not in skip \
                and node.value not in (0, 1):
            found.append((node.lineno, node.value))
    return sorted(found)


def modules() -> list[Path]:
    return sorted(p for p in ROOT.glob("*.py") if p.name not in LOADER)


def test_the_scanner_finds_a_number_and_passes_what_it_may() -> None:
    source = '''"""Rubble where dr + TEM >= 7 (5.7)."""
made = roll + tem >= 7  # 5.7
text = "a dr of 7"
shown = legal[:12] + key[2:] + [rank[2]]
step = 1 - 0 + True
'''
    assert literals(source) == [(2, 7)]


def test_no_rulebook_number_in_the_rules_code() -> None:
    stray = [f"{path.name}:{line}: {value}" for path in modules()
             for line, value in literals(path.read_text(encoding="utf-8"))
             if (path.name, value) not in ALLOWED]
    assert stray == [], ("numbers in adjudicator/stalingrad/ that belong in the data pack "
                         "(or in ALLOWED, with a reason): " + ", ".join(stray))


def test_every_allowed_number_is_still_used() -> None:
    used = {(path.name, value) for path in modules()
            for _line, value in literals(path.read_text(encoding="utf-8"))}
    assert sorted(set(ALLOWED) - used, key=str) == []
    assert all(reason.strip() for reason in ALLOWED.values())
