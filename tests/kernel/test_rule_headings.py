"""Every adjudicable numbered heading of both rulebooks is named by a conformance case.

The rulebooks are read from ``../shared/rules/`` (beside the repository, as in CI). A heading
is a line that starts with a rule number (``8.3553 Unison: ...``, ``7.7 Bridge. ...``); a
section number ``N.0`` counts only when its section has no numbered subsections (Stalin's
Tanks 20.0-24.0 are rules of their own; 6.0 only titles 6.1-6.6). A case *names* a heading
when its ``source`` line contains the number (``"Players Notes, Example 4; 8.352 (AA
halving), 8.354"``, ``"6.4 example"``, ``"8.351E"``) or a range that spans it
(``"8.3553-8.3555"``, ``"11.1–11.3"``: every heading between the two in the rulebook's order).
Only the cases the suite runs count: ``tests/conformance/<game>/*.toml``, not
``tests/conformance-pending/``.

Headings that cannot be adjudicated are listed once, each with why, in
``tests/kernel/rule_headings/not-adjudicable.toml``. The owed list,
``tests/kernel/rule_headings/owed.toml``, is empty now that a case can start from a
scenario (TP:S 5.1, 5.3 were its last entries): a heading listed there fails the test.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
RULES = REPOSITORY.parent / "shared" / "rules"
CONFORMANCE = REPOSITORY / "tests" / "conformance"
HEADING_LISTS = REPOSITORY / "tests" / "kernel" / "rule_headings"
NOT_ADJUDICABLE = HEADING_LISTS / "not-adjudicable.toml"
OWED = HEADING_LISTS / "owed.toml"

#: Each game's case folder and rulebook.
RULEBOOKS = {"stalingrad": "turning-point-stalingrad.txt", "tanks": "stalins-tanks.txt"}

HEADING = re.compile(r"(\d+)\.(\d+)\s+\S")
#: A rule number in a ``source`` line, alone or as the start of a range ("11.1-11.3").
REFERENCE = re.compile(r"(?<![\d.])(\d+\.\d+)(?:\s*[-–]\s*(\d+\.\d+))?(?![\d])")


@dataclass(frozen=True)
class Heading:
    number: str
    line: int
    title: str


def headings(text: str) -> list[Heading]:
    """The rulebook's numbered headings in order, each once (TP:S prints 18.4 twice)."""
    found: list[Heading] = []
    seen: set[str] = set()
    for index, line in enumerate(text.splitlines(), start=1):
        match = HEADING.match(line)
        if match is None:
            continue
        number = f"{match.group(1)}.{match.group(2)}"
        if number in seen:
            continue
        seen.add(number)
        title = re.split(r"[:.]\s", line[len(number):].strip(), maxsplit=1)[0]
        found.append(Heading(number, index, title.rstrip(".:")))
    with_subsections = {h.number.split(".")[0] for h in found if not h.number.endswith(".0")}
    return [h for h in found
            if not (h.number.endswith(".0") and h.number.split(".")[0] in with_subsections)]


def named_rules(source: str, order: list[str]) -> tuple[set[str], set[str]]:
    """The headings a ``source`` line names, and the numbers in it that are no heading."""
    named: set[str] = set()
    unknown: set[str] = set()
    for match in REFERENCE.finditer(source):
        first, last = match.group(1), match.group(2)
        if last is None:
            (named if first in order else unknown).add(first)
            continue
        if first not in order or last not in order or order.index(last) < order.index(first):
            unknown.add(match.group(0))
            continue
        named.update(order[order.index(first):order.index(last) + 1])
    return named, unknown


def rulebook(game: str) -> list[Heading]:
    path = RULES / RULEBOOKS[game]
    if not path.is_file():
        pytest.fail(f"the rulebook {path} is missing: a copy of shared/ must sit beside the "
                    "repository (as /work/shared beside a worktree)")
    return headings(path.read_text(encoding="utf-8"))


def listed(path: Path, game: str) -> dict[str, str]:
    with path.open("rb") as handle:
        table = tomllib.load(handle).get(game, {})
    assert isinstance(table, dict), f"{path.name}: [{game}] must be a table"
    return {str(number): str(why) for number, why in table.items()}


def case_names(game: str, order: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Heading -> the cases naming it; and every source number that is no heading."""
    by_heading: dict[str, list[str]] = {}
    problems: list[str] = []
    for path in sorted((CONFORMANCE / game).glob("*.toml")):
        with path.open("rb") as handle:
            source = str(tomllib.load(handle).get("source", ""))
        named, unknown = named_rules(source, order)
        for number in named:
            by_heading.setdefault(number, []).append(path.name)
        problems += [f"{path.name}: source {source!r} names {u}, no heading of the rulebook"
                     for u in sorted(unknown)]
    return by_heading, problems


def order_key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


@pytest.mark.parametrize("game", sorted(RULEBOOKS))
def test_every_adjudicable_heading_has_a_case(game: str) -> None:
    """Each numbered heading is named by a case's ``source``, listed as not adjudicable
    (with why), or listed as owed; a listed heading exists and has no case."""
    book = rulebook(game)
    order = [h.number for h in book]
    cases, problems = case_names(game, order)
    not_adjudicable = listed(NOT_ADJUDICABLE, game)
    owed = listed(OWED, game)
    for number in sorted(set(not_adjudicable) | set(owed), key=order_key):
        kind = "not-adjudicable" if number in not_adjudicable else "owed"
        if number not in order:
            problems.append(f"{kind} list names {number}, no heading of {RULEBOOKS[game]}")
        elif number in cases:
            problems.append(f"{kind} list names {number}, which has a case: "
                            f"{', '.join(cases[number])} (take it off the list)")
        if number in owed:
            problems.append(f"owed list names {number}: nothing may be owed any more; "
                            f"write its case in tests/conformance/{game}/")
        if number in not_adjudicable and number in owed:
            problems.append(f"{number} is listed both as not adjudicable and as owed")
        why = (not_adjudicable | owed)[number].strip()
        if not why:
            problems.append(f"{kind} list gives no reason for {number}")
    problems += [f"{h.number} {h.title} (line {h.line}) is named by no case in "
                 f"tests/conformance/{game}/"
                 for h in book
                 if h.number not in cases and h.number not in not_adjudicable
                 and h.number not in owed]
    assert not problems, "\n".join(problems)


def test_headings_read_titles_sections_and_duplicates() -> None:
    """A heading is a numbered line; N.0 only without subsections; a repeat counts once."""
    text = ("6.0 Movement\n\n6.1 General. Move.\n6.2 Friends. Stack.\n20.0 Hidden Placement\n"
            "18.4 Interdiction: one\n18.4 Interdiction: again\n6 or 8\t2\n  7.1 indented\n")
    assert [(h.number, h.title) for h in headings(text)] == [
        ("6.1", "General"), ("6.2", "Friends"), ("20.0", "Hidden Placement"),
        ("18.4", "Interdiction")]


def test_source_lines_name_several_rules_and_ranges() -> None:
    """Several numbers, letters after a number, examples and ranges (both dashes) count;
    a longer number does not name its prefix; an unknown number is reported."""
    order = ["8.35", "8.351", "8.355", "8.3553", "8.3554", "8.3555", "11.1", "11.2", "11.3"]
    named, unknown = named_rules("Players Notes, Example 3; 8.351E, 8.3553-8.3555", order)
    assert named == {"8.351", "8.3553", "8.3554", "8.3555"}
    assert unknown == set()
    named, unknown = named_rules("11.1–11.3 example; 8.36", order)
    assert named == {"11.1", "11.2", "11.3"}
    assert unknown == {"8.36"}
    assert named_rules("Kuibyshev Sawmill 5", order) == (set(), set())
