"""Order templates and autocomplete, without Discord: both games' notations, forgiving
matching, and the speed of one autocomplete call on a full Stalingrad position."""

from __future__ import annotations

import time

from adjudicator.kernel.errors import RuleError
from adjudicator.registry import load_game
from bot.discord.autocomplete import Template, rank, suggest, suggest_orders
from bot.discord.verbs import VERBS_BY_NAME, is_secret_order, template_for
from tests.kernel.duel import DuelGame

TPS = ["move 24pz 71inf to 12", "move 24pz via 11 to 13", "attack 12 fresh with 24pz 71inf",
       "attack 14 with 389inf", "pass", "end"]


def test_templates_build_each_games_canonical_text() -> None:
    stalingrad, tanks, duel = load_game("stalingrad"), load_game("tanks"), DuelGame()
    move, fire = VERBS_BY_NAME["move"], VERBS_BY_NAME["fire"]
    assert template_for(stalingrad, move).build({"units": "24pz 71inf", "to": "12"}) == \
        "move 24pz 71inf to 12"
    assert template_for(stalingrad, move).build({"units": "a", "via": "11", "to": "13"}) == \
        "move a via 11 to 13"
    assert template_for(stalingrad, VERBS_BY_NAME["attack"]).build(
        {"units": "24pz", "target": "12"}) == "attack 12 with 24pz"
    assert template_for(tanks, move).build({"units": "t34a-1", "to": "0101 0201",
                                            "facing": "NE"}) == "move t34a-1 0101 0201 face NE"
    assert template_for(tanks, fire).build({"unit": "t34a-1", "target": "pak75-1",
                                            "ammo": None}) == "fire t34a-1 at pak75-1"
    assert template_for(duel, move).build({"units": "r1", "to": "2"}) == "move r1 2"
    assert template_for(duel, VERBS_BY_NAME["pass"]).build({}) == "pass"


def test_multi_word_options_are_read_from_legal_orders() -> None:
    template = Template.parse("move {units} via {via} to {to}", ["via"])
    assert template.read("move 24pz 71inf to 12") == {"units": "24pz 71inf", "to": "12"}
    assert template.read("move 24pz via 11 to 13") == {"units": "24pz", "via": "11", "to": "13"}
    assert template.read("attack 12 with 24pz") is None
    assert suggest(TPS, template, "to", {"units": "24pz"}, "") == ["12", "13"]
    attack = Template.parse("attack {target} with {units}")
    assert suggest(TPS, attack, "target", {}, "") == ["12 fresh", "14"]
    assert suggest(TPS, attack, "units", {"target": "14"}, "") == ["389inf"]
    assert suggest(TPS, attack, "units", {}, "71") == ["24pz 71inf"]


def test_forgiving_matching_and_order_completion() -> None:
    assert rank(["Mamayev Kurgan", "Tractor Factory", "Red October"], "oct")[0] == "Red October"
    assert rank(["Mamayev Kurgan", "Red October"], "mam") == ["Mamayev Kurgan"]
    assert rank(["alpha", "beta"], "") == ["alpha", "beta"]
    assert rank(["r10nkvd:i/269", "r10nkvd:ii/270"], "270") == ["r10nkvd:ii/270"]
    assert suggest_orders(TPS, "att 14")[0] == "attack 14 with 389inf"
    assert suggest_orders(TPS, "pass\nen")[0] == "pass\nend"


def test_secret_orders_are_recognised_without_echo() -> None:
    tanks = load_game("tanks")
    assert is_secret_order(tanks, "hide pak75-1 0101")
    assert is_secret_order(tanks, "done\nmine 1213")
    assert not is_secret_order(tanks, "move t34a-1 0101")
    assert is_secret_order(tanks, "hid garbled words")  # unreadable, but looks secret
    duel = DuelGame()
    assert is_secret_order(duel, "trap mill") and not is_secret_order(duel, "move r1 2")


def test_autocomplete_on_a_full_stalingrad_position_is_fast() -> None:
    game = load_game("stalingrad")
    state = game.setup()
    side = game.acting_side(state)
    assert side is not None
    # Play the free set-up through, so the position is full.
    for _ in range(400):
        orders = game.legal_orders(state, side)
        if not orders or not orders[0].startswith("setup"):
            break
        try:
            state = game.apply_text(state, side, orders[0], _NoDice()).state
        except RuleError:
            break
        side = game.acting_side(state) or side
    legal = game.legal_orders(state, side)
    assert legal
    move = template_for(game, VERBS_BY_NAME["move"])
    started = time.perf_counter()
    for typed in ("", "1", "2", "r"):
        suggest(legal, move, "units", {}, typed)
        suggest(legal, move, "to", {"units": typed}, "")
    per_call = (time.perf_counter() - started) / 8
    assert per_call < 0.020, f"{per_call * 1000:.1f} ms per autocomplete call"


class _NoDice:
    def __init__(self) -> None:
        self.rolls: list[object] = []

    def roll(self, label: str, count: int = 2, sides: int = 6,
             audience: str = "public") -> object:
        raise RuleError("dice", f"no dice expected during set-up ({label})")
