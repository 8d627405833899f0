"""Order templates and autocomplete, without Discord: both games' notations, forgiving
matching, and suggestions on a full Stalingrad position (its speed: ``umpire bench
autocomplete``)."""

from __future__ import annotations

from adjudicator.kernel.dice import CommittedDice
from adjudicator.registry import load_game
from bot.discord.autocomplete import Template, rank, suggest, suggest_orders
from bot.discord.verbs import VERBS_BY_NAME, is_secret_order, secret_commands, template_for
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
    assert not is_secret_order(tanks, "standing casualties hold")  # never posted
    assert secret_commands(tanks, ["place pak75-1 0101", "hide pak75-1 0102",
                                   "hide pak75-2 0103", "mine 0505", "done"]) == ["hide", "mine"]
    assert secret_commands(duel, ["trap 3", "move r1 2"]) == ["trap"]


def test_autocomplete_on_a_full_stalingrad_position_offers_legal_values() -> None:
    game = load_game("stalingrad")
    state = game.setup("historical")
    dice = CommittedDice(b"autocomplete", "test")
    # Roll the initial Rubble (5.7), answering any Advantage question, up to the first impulse.
    for _ in range(40):
        side = game.acting_side(state)
        assert side is not None
        legal = game.legal_orders(state, side)
        if any(order.startswith("move ") for order in legal):
            break
        state = game.apply_text(state, side, legal[0], dice).state
    move = template_for(game, VERBS_BY_NAME["move"])
    moves = [order for order in legal if order.startswith("move ")]
    assert moves
    units = suggest(legal, move, "units", {}, "")
    assert units and all(any(order.startswith(f"move {u} ") for order in moves) for u in units)
    destinations = suggest(legal, move, "to", {"units": units[0]}, "")
    assert destinations
    for to in destinations:
        assert any(order.startswith(f"move {units[0]} ") and order.endswith(f" to {to}")
                   for order in moves), to
