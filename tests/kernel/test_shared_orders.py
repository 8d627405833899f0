"""``standing`` and ``resign`` are declared once, in the kernel's shared order spec: both
games parse, format and explain them from it; one tokenizer reads every order line."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.kernel import spec as kernel_spec
from adjudicator.kernel.errors import NotationError
from adjudicator.kernel.game import Game
from adjudicator.kernel.orders import COMMA, Resign, SetStanding, tokens, words
from adjudicator.kernel.shared_orders import SHARED_SPEC, shared_verb
from adjudicator.stalingrad.game import StalingradGame
from adjudicator.tanks.game import TanksGame

GAMES: dict[str, Game[Any]] = {"stalingrad": StalingradGame(), "tanks": TanksGame()}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_standing_and_resign_come_from_the_shared_spec_in_both_games(name: str) -> None:
    game = GAMES[name]
    assert game.parse("Standing  Casualties HOLD") == SetStanding(kind="casualties",
                                                                 policy="hold")
    assert game.parse("standing casualties off") == SetStanding(kind="casualties")
    assert game.format(SetStanding(kind="casualties")) == "standing casualties off"
    assert game.format(game.parse("resign")) == "resign"
    assert isinstance(game.parse("resign # I give up"), Resign)
    for bad in ("standing casualties", "standing a b c", "resign now"):
        with pytest.raises(NotationError) as refused:
            game.parse(bad)
        assert refused.value.legal, bad  # what is legal is said
    # help: both in the overview, each in full, with examples
    overview = game.help()
    assert "standing KIND POLICY" in overview and "\nresign " in overview
    assert "e.g. standing casualties hold" in game.help("standing")
    assert "give the game up" in game.help("resign")


def test_a_game_verb_sharing_a_prefix_is_not_read_as_a_shared_order() -> None:
    """Only the exact first words ``standing`` and ``resign`` are the shared orders, so
    TP:S ``re`` (retreat, refit, …) is still the game's to read."""
    assert shared_verb("resign") and shared_verb("STANDING x y")
    assert not shared_verb("res") and not shared_verb("stand x y") and not shared_verb("")
    assert SHARED_SPEC.first_words() == ["standing", "resign"]


def test_one_tokenizer_reads_every_order_line() -> None:
    """The spec reads lines with the kernel's one tokenizer; ``words`` is that tokenizer
    keeping commas inside words."""
    assert kernel_spec.tokens is tokens and kernel_spec.COMMA is COMMA
    assert tokens("attack 35 with a,b  # note") == ["attack", "35", "with", "a", ",", "b"]
    assert words("attack 35 with a,b  # note") == ["attack", "35", "with", "a,b"]
    assert tokens("   ") == [] and words("# only a comment") == []
