"""``legal`` lists every order the rules accept, compactly, with one filter for every
frontend (issue 22): the symptoms a new player met, each pinned."""

from __future__ import annotations

import re
from pathlib import Path

from adjudicator.kernel.dice import CommittedDice
from adjudicator.kernel.listed import Families, Listed, covered
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.stalingrad.legal import legal_entries
from adjudicator.stalingrad.state import StalingradState
from bot import listing
from tests.bot.test_console import session

GAME = StalingradGame()


def russian_first_impulse() -> StalingradState:
    """The historical game after the Rubble rolls and a German Pass: the Russian acts."""
    dice = CommittedDice(b"\x05" * 8, "legal")
    state = GAME.setup("historical")
    for order in ("rubble", "pass"):
        side = GAME.acting_side(state)
        assert side is not None
        state = GAME.apply_text(state, side, order, dice).state
    assert GAME.acting_side(state) == "russian"
    return state


def test_fortify_and_moves_of_every_unit_are_listed_14_3_8_2() -> None:
    """14.3: ``fortify 69 with 1057eng`` (docs/notation.md's example) is accepted and
    listed; 8.2: every unit's every destination is in the complete listing (the sample
    for autocomplete stops after 400 orders, the listing does not)."""
    state = russian_first_impulse()
    entries = GAME.legal_options(state, "russian", complete=True)
    fortify = GAME.parse("fortify 69 with 1057eng")
    GAME.apply(state, "russian", fortify, CommittedDice(b"\x01" * 8, "f"))
    assert covered(entries, GAME.parse, fortify) is not None
    assert len(GAME.legal_options(state, "russian")) > 400  # the sample stops there
    ctx = Ctx(GAME.board_for(state), state.copy_for_apply())
    families = Families(entries, GAME.parse)
    for order, _ in legal_entries(ctx, "russian", None):
        assert families.find(GAME.parse(order)) is not None, order
    # compact: one entry per attack target and Group, per move destination and Area
    assert len(entries) < len(legal_entries(ctx, "russian", None))


def test_an_attack_is_one_entry_with_the_units_that_may_join_8_3() -> None:
    """8.3: an attack lists its target and Group once, with every unit that may join; any
    of them (a subset the rules accept) is matched."""
    state = russian_first_impulse()
    attacks = [e for e in GAME.legal_options(state, "russian", complete=True)
               if e.order.startswith("attack ")]
    assert attacks and all(isinstance(e, Listed) and "units" in e.free for e in attacks)
    keys = [tuple(e.order.split()[1:3]) for e in attacks]
    first = attacks[0]
    assert isinstance(first, Listed)
    units = first.free["units"] or ()
    one = GAME.parse(f"attack {first.order.split()[1]} with {units[-1]}")
    assert covered(attacks, GAME.parse, one) is not None
    assert len(keys) == len(attacks) or len(set(keys)) < len(keys)  # per Area of origin


def test_console_legal_filters_by_verb_unit_id_and_short_name_and_the_hint_names_every_verb(
        tmp_path: Path) -> None:
    """``legal fortify`` finds the fortifications; ``legal r2mrb:1mrb2`` and ``legal
    1mrb2`` the orders of that unit; after a refusal the hint names every verb legal now
    (it used to stop at the moves, leaving out the verbs listed after them)."""
    console, out = session(tmp_path, "stalingrad", "historical", [
        "rubble", "pass", "legal fortify", "legal 1mrb2", "legal r2mrb:1mrb2",
        "advantage reroll", "fortify 69 with 1057eng", "quit"])
    console.run()
    text = out.getvalue()
    assert not re.search(r"(?<!\d)0 legal order\(s\)", text), text[-3000:]
    # an order its units give together is shown whole, never with one unit named twice
    # ("attack 17 fresh with 1mrb2 2rb115 1mrb2" was "legal 1mrb2"'s line for it)
    for line in text.splitlines():
        if " with " in line and "(" in line:
            named = line.split(" with ")[1].split("  (")[0].split()
            named = [word for word in named if word not in ("3", "of", "any")]
            assert len(named) == len(set(named)), line
    assert "matching 'fortify'" in text and "fortify 69 with" in text
    assert "matching '1mrb2'" in text and "matching 'r2mrb:1mrb2'" in text
    hint = next(line for line in text.splitlines() if "now russian may:" in line)
    for verb in ("pass", "attack", "fortify", "move"):
        assert verb in hint, hint
    assert "Fortification dr" in text.split("fortify 69 with 1057eng")[-1] or "fortif" in (
        text.split("fortify 69 with 1057eng")[-1].lower())


def test_one_filter_reads_unit_ids_short_names_places_and_verbs() -> None:
    """The filter every frontend uses (console, email): a family matches by any unit of
    it, by id or short name."""
    state = russian_first_impulse()
    found = listing.entries(GAME, state, "russian")
    resolvers = GAME.name_resolvers(state, "russian")
    verbs = GAME.order_spec.first_words()
    for words in (["1mrb2"], ["r2mrb:1mrb2"], ["move", "1mrb2"], ["fortify"], ["20"]):
        wanted = listing.read_filter(words, verbs, resolvers)
        assert [e for e in found if wanted.matches(e)], words


def test_23_legal_unfiltered_is_short_grouped_best_first_the_rest_counted_8_3_8_2() -> None:
    """Issue 23: ``legal`` with nothing to narrow it answers one page — every group by
    verb with its count, its best orders first (an attack with the most units that may
    join, 8.3; the cheapest move, 8.2), the rest counted with the filter that lists them;
    a filter (or ``legal all``) lists the whole group."""
    state = russian_first_impulse()
    found = listing.entries(GAME, state, "russian")
    whole = listing.listing(found, listing.Filter(), "russian", len(found), brief=False)
    brief = listing.listing(found, listing.Filter(), "russian", len(found))
    assert len(whole.lines) > 400 and len(brief.lines) <= 4 * listing.PAGE
    heads = [line for line in whole.lines if not line.startswith(" ")]
    assert heads == [line for line in brief.lines if not line.startswith(" ")]
    assert "the best of each" in brief.title and brief.title.startswith(f"{len(found)} ")
    moves = [e for e in found if e.verb == "move"]
    more = f"  ... {len(moves) - listing.BEST} more: legal move"
    assert more in brief.lines
    shown = brief.lines[brief.lines.index(f"move ({len(moves)}):") + 1:brief.lines.index(more)]
    cost = [int(m.group(1)) for m in (re.search(r"\((\d+)(?:-\d+)? MF", line)
                                      for line in shown) if m]
    cheapest = min(int(m.group(1)) for m in (re.match(r"(\d+)(?:-\d+)? MF", e.label)
                                             for e in moves) if m)
    assert cost == sorted(cost) and cost[0] == cheapest
    attacks = [e for e in found if e.verb == "attack"]
    first = brief.lines[brief.lines.index(f"attack ({len(attacks)}):") + 1].strip()
    strongest = max(len(e.units) for e in attacks)
    assert any(first == e.line and len(e.units) == strongest for e in attacks), first
    narrowed = listing.listing(found, listing.read_filter(
        ["move"], GAME.order_spec.first_words(), GAME.name_resolvers(state, "russian")),
        "russian", len(found))
    assert len(narrowed.lines) == len(moves) + 1  # the heading and every move
