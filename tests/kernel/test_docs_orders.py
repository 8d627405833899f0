"""Every order example in docs/*.md reads as an order of a shipped game, and the fire
examples of docs/notation.md play as the rules say (13.1, 14.1).

An *order example* is an inline code span whose first word starts an order of a game
(``move``, ``attack``, ``fire``...) and that has more than that word. Spans that show a form
rather than an order — placeholders in capitals (``bid N``, ``bombard ATTACKS``), choices and
options (``[...]``, ``a|b``), a frontend's ``decide N`` answer by option number — are not
orders; the few that remain are listed in :data:`NOT_ORDERS`, each with why.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.registry import load_game
from adjudicator.tanks.game import TanksGame
from bot.notation import GAMES

DOCS = Path(__file__).resolve().parents[2] / "docs"
CODE = re.compile(r"`([^`\n]+)`")
FORM = re.compile(r"[<>\[\]|{}=…]|\.\.\.|\b[A-Z]{2,}\b|\b[A-Z]\b")
#: Spans that look like orders but are not, with why.
NOT_ORDERS = {
    "advantage never": "a standing order's kind and policy (`standing advantage never`)",
    "decide 2": "the frontends' answer by option number (docs/email.md), read before the "
                "notation",
    "decide ²": "a refused input (docs/security.md, 27.7: a number in non-ASCII digits)",
}
#: Docs that transcribe games of the kernel's contract game too (Duel, tests/kernel/duel.py):
#: their examples may read as Duel's orders.
DUEL_DOCS = {"discord-session.md"}


def order_examples() -> list[tuple[str, int, str]]:
    """(file, line, text) of every order example in docs/*.md."""
    first = {"standing", "resign"}
    for name in GAMES:
        first |= set(load_game(name).order_spec.first_words())
    found: list[tuple[str, int, str]] = []
    for doc in sorted(DOCS.glob("*.md")):
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
            for match in CODE.finditer(line):
                text = match.group(1).strip()
                words = text.split()
                if len(words) < 2 or words[0].lower() not in first or FORM.search(text) \
                        or text in NOT_ORDERS:
                    continue
                found.append((doc.name, number, text))
    return found


def test_the_docs_hold_order_examples_of_both_games() -> None:
    examples = [text for _, _, text in order_examples()]
    assert len(examples) > 100
    assert any(t.startswith("fire ") for t in examples)
    assert any(t.startswith("attack ") for t in examples)


@pytest.mark.parametrize(("doc", "line", "text"), order_examples())
def test_every_order_example_in_the_docs_reads_as_an_order(doc: str, line: int,
                                                          text: str) -> None:
    """Each example is read by at least one shipped game's notation."""
    problems = []
    games = [(name, load_game(name)) for name in GAMES]
    if doc in DUEL_DOCS:
        from tests.kernel.duel import DuelGame

        games.append(("duel", DuelGame()))
    for name, game in games:
        try:
            game.parse(text)
            return
        except RuleError as error:
            problems.append(f"{name}: {error}")
    pytest.fail(f"{doc}:{line}: `{text}` reads as no order: {'; '.join(problems)}")


def test_the_notation_pages_fire_examples_play_13_1_14_1() -> None:
    """13.1, 14.1: HE is fired at armored units, so the page's HE example fires at a T-34;
    at infantry it would be refused (13.1: unarmored targets take AP fire)."""
    page = (DOCS / "notation.md").read_text(encoding="utf-8")
    assert "`fire ivh-2 at t34c-1 he`" in page and "infsu-1 he" not in page
    game = TanksGame()
    state = game.case_position({
        "blank_map": True, "phasing": "german", "phase": "stationary",
        "units": [{"id": "ivh-2", "side": "german", "type": "ivh", "hex": "1010",
                   "facing": "S"},
                  {"id": "t34c-1", "side": "soviet", "type": "t34c", "hex": "1013",
                   "facing": "N"},
                  {"id": "infsu-1", "side": "soviet", "type": "inf-su", "hex": "0913"}]})
    outcome = game.apply_text(state, "german", "fire ivh-2 at t34c-1 he", FixedDice([3, 3]))
    assert any(e.kind == "fire" and e.data.get("mode") == "he" for e in outcome.events)
    with pytest.raises(RuleError) as refused:
        game.apply_text(state, "german", "fire ivh-2 at infsu-1 he", FixedDice([3, 3]))
    assert refused.value.rule == "13.1"
