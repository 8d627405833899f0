"""The red team's scans find leaks when there are some (each shown on a leaky variant)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import GM, Event
from adjudicator.kernel.game import Game
from adjudicator.tanks.game import TanksGame
from bot import deadlines, messages
from bot.mail import gateway
from bot.mail.desk import Desk
from bot.mail.outbound import Outgoing
from bot.redteam import leaks, outputs, selftest
from bot.redteam import mail as redteam_mail
from bot.redteam.differential import FIGURE, World, differential, secret_scenarios
from bot.redteam.faults import corruptions
from bot.redteam.leaks import Table, Tally, play_and_scan, scan
from bot.redteam.outputs import Moment, Output, output_producer
from bot.service import GameService
from bot.service import reads as service_reads
from bot.service import rollback as service_rollback


def failures(tally: Tally) -> int:
    return sum(tally.failed.values())


def test_a_clean_scan_of_a_face_down_set_up_finds_nothing(tmp_path: Path) -> None:
    tally = Tally()
    play_and_scan(tmp_path, "tanks", "gauntlet", 14, 3, tally)
    assert tally.tried["leak scan: log"] > 0 and tally.tried["leak scan: views"] > 0
    assert failures(tally) == 0, tally.examples


def test_a_registered_producer_is_scanned_and_a_leak_counted(tmp_path: Path) -> None:
    """A frontend plugs in its outputs (the email gateway's mails); a leaky one is caught."""

    @output_producer("leaky mail")
    def leaky(m: Moment) -> Iterable[Output]:
        gm_view = m.service.view(m.game_id, m.actors[GM], GM).model_dump_json()
        yield Output("leaky mail", "public", gm_view)

    try:
        tally = Tally()
        play_and_scan(tmp_path, "tanks", "pakfront", 30, 5, tally)
        assert tally.failed["leak scan: leaky mail"] > 0
        assert sum(n for figure, n in tally.failed.items()
                   if figure != "leak scan: leaky mail") == 0, tally.examples
    finally:
        outputs.PRODUCERS.pop("leaky mail")


def test_the_log_scan_catches_secret_orders_shown_to_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(messages, "text_visible", lambda game, row, audience: True)
    tally = Tally()
    play_and_scan(tmp_path, "tanks", "gauntlet", 12, 3, tally)
    assert tally.failed["leak scan: log"] > 0


def test_the_differential_probe_catches_a_view_that_shows_secrets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clean = Tally()
    for seed in range(3):
        differential("tanks", "pakfront", 6, seed, clean)
    assert clean.tried["differential: tanks secret set-up"] > 0 and failures(clean) == 0

    original = TanksGame.make_view

    def leaky(self: TanksGame, state: object, viewer: str) -> object:
        view = original(self, state, "gm")  # type: ignore[arg-type]
        view.viewer = viewer
        return view

    monkeypatch.setattr(TanksGame, "make_view", leaky)
    found = Tally()
    for seed in range(3):
        differential("tanks", "pakfront", 6, seed, found)
    assert failures(found) > 0


# ---- each kind of leak, planted, is reported; the same play without it is clean ---------------

def scripted(tmp_path: Path, game: str, scenario: str,
             moves: list[tuple[str, str]], seed: int = 0) -> Tally:
    """A game of the red team's table played by ``moves`` (side, order; ``undo``; or a verb,
    the side's first legal order with it), every producer scanned after each."""
    tally = Tally()
    table = Table(tmp_path, game, scenario, random.Random(seed), 0, tally)
    m, service = table.moment, table.service
    for step, (side, move) in enumerate(moves, start=1):
        m.step = 60 * step  # a multiple of every producer's period: all of them run
        actor = table.players[side]
        if move == "undo":
            result = service.undo(table.game_id, actor)
        elif move == "resign":
            result = service.submit(table.game_id, actor, "resign")
        else:
            legal = service.legal_orders(table.game_id, actor, side)
            order = move if " " in move else next(o for o in legal if o.split()[0] == move)
            result = service.submit(table.game_id, actor, order)
        assert result.ok, result.error
        m.results = [result]
        scan(m, tally)
    assert tally.tried["leak scan: emails"] > 0
    return tally


def found(tally: Tally) -> dict[str, int]:
    return {figure: n for figure, n in tally.failed.items() if n}


def test_the_same_standing_order_on_both_sides_is_no_leak(tmp_path: Path) -> None:
    """Both sides may hold, set, take back and read the very same policy text: only an
    output that says it is the other side's is a leak."""
    same = "standing defensive-fire hold"
    tally = scripted(tmp_path / "a", "tanks", "pakfront",
                     [("soviet", same), ("german", same), ("german", "undo")])
    assert found(tally) == {}, tally.examples
    tally = scripted(tmp_path / "b", "tanks", "pakfront",
                     [("german", same), ("german", "undo"), ("soviet", same)])
    assert found(tally) == {}, tally.examples


def own_text_producer(texts: dict[str, list[str]]) -> None:
    @output_producer("planted")
    def planted(m: Moment) -> Iterable[Output]:
        for audience, said in texts.items():
            for text in said:
                yield Output("planted", audience, text)


@pytest.mark.parametrize(("text", "leak"), [
    # the German's own default answer quotes the policies the Russian holds: no leak
    ("german answers by default (standing advantage never; 'standing advantage ask' to be "
     "asked): advantage decline", False),
    ("standing voluntary ask: ask each time (a list of the policies)", False),
    ('{"viewer": "german", "standing": {"card": "highest"}}', False),
    # the Russian's policy said to be the Russian's, or shown as the German's own
    ("russian: standing order advantage = never", True),
    ("#7 order russian: standing voluntary ask", True),
    ('{"seq": 7, "side": "russian", "text": "standing advantage never"}', True),
    ("standing voluntary ask (yours now): ask each time", True),
    ('{"viewer": "german", "standing": {"advantage": "never"}}', True),
])
def test_a_standing_order_leaks_where_it_is_said_to_be_the_other_sides(
        tmp_path: Path, text: str, leak: bool) -> None:
    own_text_producer({"german": [text]})
    try:
        tally = scripted(tmp_path, "stalingrad", "basic",
                         [("russian", "standing advantage never"),
                          ("russian", "standing voluntary ask"),
                          ("german", "standing card highest")])
    finally:
        outputs.PRODUCERS.pop("planted")
    assert bool(tally.failed["leak scan: planted"]) == leak, tally.examples
    assert sum(found(tally).values()) == tally.failed["leak scan: planted"], tally.examples


def test_another_sides_standing_order_shown_to_all_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moves = [("soviet", "standing defensive-fire best-shot"), ("german", "hide")]
    assert found(scripted(tmp_path / "clean", "tanks", "pakfront", moves)) == {}
    original = Game._set_standing

    def public(self: Game[Any], state: Any, side: str, order: Any) -> Event:
        return original(self, state, side, order).model_copy(update={"audience": "public"})

    monkeypatch.setattr(Game, "_set_standing", public)
    tally = scripted(tmp_path / "leaky", "tanks", "pakfront", moves)
    assert tally.failed["leak scan: notices"] and tally.failed["leak scan: log"], tally.examples


def test_an_undo_notice_quoting_a_secret_order_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for number, moves in enumerate(([("german", "hide"), ("german", "undo")],
                                    [("german", "standing defensive-fire hold"),
                                     ("german", "undo")])):
        folder = tmp_path / str(number)  # a table of the same seed: the same game id
        assert found(scripted(folder / "clean", "tanks", "pakfront", moves)) == {}
        monkeypatch.setattr(service_rollback, "order_text_for",
                            lambda game, row, audience: str(row["text"]))
        tally = scripted(folder / "leaky", "tanks", "pakfront", moves)
        monkeypatch.undo()
        assert tally.failed["leak scan: notices"], (moves, tally.examples)


def test_a_hidden_unit_in_the_log_export_and_gif_captions_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moves = [("german", "hide"), ("german", "hide"), ("german", "place")]
    assert found(scripted(tmp_path / "clean", "tanks", "pakfront", moves)) == {}
    monkeypatch.setattr(messages, "text_visible", lambda game, row, audience: True)
    tally = scripted(tmp_path / "leaky", "tanks", "pakfront", moves)
    for figure in ("log", "export", "GIF captions", "emails"):
        assert tally.failed[f"leak scan: {figure}"], (figure, tally.examples)


def place_the_rest(table: Table, placed: set[str], pick: int) -> set[str]:
    """The German sets up every unit not in ``placed`` with the ``pick``-th legal place
    order for it (0: the first hex listed, -1: the last); returns every unit placed."""
    german = table.players["german"]
    placed = set(placed)
    while True:
        legal = table.service.legal_orders(table.game_id, german, "german")
        rest = [o for o in legal if o.split()[0] == "place" and o.split()[1] not in placed]
        if not rest:
            return placed
        placed.add(rest[pick].split()[1])
        assert table.service.submit(table.game_id, german, rest[pick]).ok


def scan_then_roll_back(table: Table, tally: Tally, result: Any, to_seq: int) -> None:
    """Every producer scanned after ``result``, then after the GM rolls back to ``to_seq``."""
    m = table.moment
    m.step, m.results = 60, [result]
    scan(m, tally)
    back = table.service.rollback(table.game_id, table.gm, to_seq, "misclick")
    assert back.ok, back.error
    m.step, m.results = 120, [back]
    scan(m, tally)


def test_a_unit_revealed_in_public_then_hidden_again_by_a_rollback_is_no_lone_finding(
        tmp_path: Path) -> None:
    """20.0: a Soviet unit entering next to a hidden German unit reveals it, in public, in
    its hex; the GM rolls the move back and the unit is hidden there again. The log still
    tells the reveal (rollback keeps history), so its hex in a narrative output is no leak:
    the public saw the unit there. (The CI red team's seed 1796224893 counted it.)"""
    tally = Tally()
    table = Table(tmp_path, "tanks", "pakfront", random.Random(0), 0, tally)
    m, service, german = table.moment, table.service, table.players["german"]
    assert service.submit(table.game_id, german, "hide pak75-1 0703").ok
    place_the_rest(table, {"pak75-1"}, -1)  # at the far end of the map, out of the way
    set_up = service.submit(table.game_id, german, "done")
    moved = service.submit(table.game_id, table.players["soviet"], "move t34c-1 to 0904")
    assert "pak75-1 revealed in 0703" in " ".join(moved.messages["public"].lines)
    scan_then_roll_back(table, tally, moved, set_up.seqs[-1])
    assert next(u for u in m.state().units if u.id == "pak75-1").hidden  # hidden again
    assert tally.tried["leak scan: log"] > 0
    assert found(tally) == {}, tally.examples


def test_25_7_units_turned_face_up_then_face_down_again_by_a_rollback_are_no_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """25.7: Gauntlet's face-down German units turn face up at the start of their Defensive
    Fire Phase, in public, each named in its hex; the GM rolls that back and they are face
    down there again. The log keeps the telling: neither the unit in its hex nor its type
    alone (planted here in a public narrative) is a leak any more."""
    monkeypatch.setattr(leaks, "NARRATIVE", leaks.NARRATIVE | {"planted"})
    own_text_producer({"public": ["the public saw a german Panth. in 0101"]})
    try:
        tally = _face_up_and_back(tmp_path)
    finally:
        outputs.PRODUCERS.pop("planted")
    assert tally.tried["leak scan: log"] > 0 and tally.tried["leak scan: planted"] > 0
    assert found(tally) == {}, tally.examples


def _face_up_and_back(tmp_path: Path) -> Tally:
    tally = Tally()
    table = Table(tmp_path, "tanks", "gauntlet", random.Random(0), 0, tally)
    m, service = table.moment, table.service
    german, soviet = table.players["german"], table.players["soviet"]
    placed = place_the_rest(table, set(), 0)
    assert service.submit(table.game_id, german, "done").ok
    moved: set[str] = set()
    while True:  # 6.5: every Soviet unit that can enters, then the phases end
        before = service.info(table.game_id).head_seq
        done = service.submit(table.game_id, soviet, "done")
        if done.ok and "face-up" in " ".join(done.messages["public"].lines):
            break
        if done.ok:
            continue
        legal = service.legal_orders(table.game_id, soviet, "soviet")
        order = next(o for o in legal if o.startswith("move ") and o.split()[1] not in moved)
        moved.add(order.split()[1])
        assert service.submit(table.game_id, soviet, order).ok
    scan_then_roll_back(table, tally, done, before)
    assert {u.id for u in m.state().units if u.concealed} == placed  # face down again
    return tally


def test_a_face_down_unit_in_the_log_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moves = [("german", "place"), ("german", "place")]
    assert found(scripted(tmp_path / "clean", "tanks", "gauntlet", moves)) == {}
    monkeypatch.setattr(messages, "text_visible", lambda game, row, audience: True)
    tally = scripted(tmp_path / "leaky", "tanks", "gauntlet", moves)
    assert tally.failed["leak scan: log"] and tally.failed["leak scan: export"], tally.examples


def test_an_email_address_in_info_or_export_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moves = [("german", "hide"), ("soviet", "resign")]
    assert found(scripted(tmp_path / "clean", "tanks", "pakfront", moves)) == {}
    shown = GameService._seat_info
    monkeypatch.setattr(GameService, "_seat_info",
                        staticmethod(lambda seat, email=True: shown(seat, True)))
    assert scripted(tmp_path / "info", "tanks", "pakfront", moves).failed["leak scan: info"]
    monkeypatch.undo()
    # the full record of a finished game, the players' addresses left in
    monkeypatch.setattr(service_reads, "redact_contacts", lambda lines, labels, actor: lines)
    tally = scripted(tmp_path / "export", "tanks", "pakfront", moves)
    assert tally.failed["leak scan: export"], tally.examples


def mailed_then_taken_back(tmp_path: Path) -> Tally:
    """Kursk salient: the Soviet (who plays by mail) mails a mine's placement, whose reply
    shows its own secret mine, and takes the order back before the mail is scanned."""
    tally = Tally()
    table = Table(tmp_path, "tanks", "kursk-salient", random.Random(0), 0, tally)
    m, service = table.moment, table.service
    m.step = 60
    scan(m, tally)  # the mail producer starts: the players write to the gateway
    legal = service.legal_orders(table.game_id, table.players["soviet"], "soviet")
    assert redteam_mail.send_order(m, "soviet", next(o for o in legal if o.startswith("mine")))
    assert service.undo(table.game_id, table.players["soviet"]).ok
    m.step = 120
    scan(m, tally)
    return tally


def test_a_picture_is_judged_by_its_readers_secrets_when_it_was_mailed(tmp_path: Path) -> None:
    """The mail scan's one failure (leak scan: emails, 'a picture to the Soviet in the
    secret colours while the Soviet held no secret'): the reply to a mailed order was
    drawn while its reader held a secret of its own and scanned after that secret was
    taken back. The picture showed the reader's own mine: no leak. A mail's picture is
    judged by its reader's secrets when it was sent (a picture drawn from the GM's view
    is still found: ``test_a_mail_to_a_player_with_what_only_the_gm_may_read_is_found``)."""
    tally = mailed_then_taken_back(tmp_path / "clean")
    assert tally.tried["leak scan: emails"] > 5 and found(tally) == {}, tally.examples


def test_a_deadline_notice_that_depends_on_a_standing_order_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The public notice says how the side's order was chosen: the differential of the
    deadline (two copies, standing order set or not) finds it; the product's does not."""
    original = deadlines.expiry_notices

    def telling(game: Any, state: Any, side: str, text: str) -> list[Event]:
        notices = original(game, state, side, text)
        how = "by its standing order" if state.standing.get(side) else "by default"
        return [notices[0].model_copy(update={"text": f"{notices[0].text} ({how})"}),
                *notices[1:]]

    for leaky in (False, True):
        if leaky:
            monkeypatch.setattr(deadlines, "expiry_notices", telling)
        tally = Tally()
        table = Table(tmp_path / str(leaky), "tanks", "first-encounter", random.Random(2), 0,
                      tally)
        for _ in range(300):  # random play until a side owes a decision with a default
            state = table.moment.state()
            if state.pending is not None and state.pending.default:
                break
            table.step(last=False)
        else:
            pytest.fail("no decision with a default came up")
        for _ in range(4):
            table._deadline_differential()
        assert tally.tried["differential: deadline notices"] > 0
        assert bool(tally.failed["differential: deadline notices"]) == leaky, tally.examples


def test_a_red_team_table_plays_the_same_game_again_from_the_same_seed(tmp_path: Path) -> None:
    """``umpire redteam --seed N`` reproduces a finding: a table's game (its id, which the
    dice hash, and its dice seed) comes from the run's seed, not from the machine."""
    played = []
    for run in ("a", "b"):
        table = Table(tmp_path / run, "stalingrad", "sawmill", random.Random(5), 0, Tally())
        for _ in range(15):
            table.step(last=False)
        played.append([(a["text"], a["events"]) for a in
                       table.service.store.actions(table.game_id, after=0)])
        table.service.store.close()
    assert len(played[0]) > 5 and played[0] == played[1]


def test_9_4_a_question_one_world_asks_and_the_other_spares_is_no_deadline_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """9.4 (docs/rulings.md, the Advantage offered only against the holder): at a deadline
    both copies answer the Advantage decision "advantage decline"; the order then goes on
    and a later dr goes against the holder. With ``advantage never`` it is not offered and
    the order plays on; by default the holder is asked and the game waits. That a side is
    asked is public, so the worlds played differently: no pair, no finding (CI's red team
    counted one, seed 1796233194)."""
    expired: list[tuple[str, dict[str, list[str]]] | None] = []
    original = Table._expire_copy

    def recorded(self: Table, *args: Any) -> Any:
        expired.append(original(self, *args))
        return expired[-1]

    monkeypatch.setattr(Table, "_expire_copy", recorded)

    def parted() -> bool:
        pairs = [(a, b) for a, b in zip(expired[::2], expired[1::2], strict=False)
                 if a is not None and b is not None]
        return any(a[0] != b[0] and a[0].split("\nthen ")[0] == b[0].split("\nthen ")[0]
                   for a, b in pairs)

    tally = Tally()
    table = Table(tmp_path, "stalingrad", "sawmill", random.Random(1009), 0, tally)
    for _ in range(80):  # random play (this seed's dice: the run's seed) until it happens
        table.step(last=False)
        if parted():
            break
    else:
        pytest.fail("no deadline where one world was asked and the other not came up")
    assert tally.failed["differential: deadline notices"] == 0, tally.examples


def test_a_mail_to_a_player_with_what_only_the_gm_may_read_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gateway's mails are scanned per recipient seat: a desk that writes to the Soviet
    player (who plays by mail) what the GM reads is caught by its words and its picture."""
    moves = [("german", "hide"), ("german", "hide"), ("german", "place")]
    clean = scripted(tmp_path / "clean", "tanks", "pakfront", moves)
    assert found(clean) == {} and clean.tried["leak scan: emails"] > 10
    digest = Desk._digest
    monkeypatch.setattr(Desk, "_digest", lambda self, info, audience, after: digest(
        self, info, GM, after))
    tally = scripted(tmp_path / "leaky", "tanks", "pakfront", moves)
    assert tally.failed["leak scan: emails"], tally.examples
    assert all("hidden unit" in e or "secret colours" in e
               for e in tally.examples["leak scan: emails"]), tally.examples


def test_a_mail_marked_for_another_audience_than_its_recipients_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every mail names its audience (``X-Umpire-Audience``); a mail to the Soviet player
    marked as the German's is a finding even when its words give nothing away."""
    compose = redteam_mail.compose

    def mislabelled(out: Outgoing, sender: str, name: str) -> Any:
        message = compose(out, sender, name)
        if out.audience == "soviet":
            del message["X-Umpire-Audience"]
            message["X-Umpire-Audience"] = "german"
        return message

    monkeypatch.setattr(redteam_mail, "compose", mislabelled)
    monkeypatch.setattr(gateway, "compose", mislabelled)
    tally = scripted(tmp_path, "tanks", "pakfront", [("german", "place"), ("german", "hide")])
    assert tally.failed["leak scan: emails"], tally.examples
    assert all("marked german" in e for e in tally.examples["leak scan: emails"])
    assert redteam_mail.readable("soviet", "public") and redteam_mail.readable("gm", "german")
    assert not redteam_mail.readable("public", "soviet")


def test_a_damaged_database_probe_that_moves_the_game_on_is_no_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rebuild of a damaged copy is compared with the healthy state; the probe's order
    after it may be played (a Turning Point: Stalingrad Pass), so each try has its own copy."""
    original = GameService.submit

    def playing(self: GameService, game_id: str, actor: Any, text: str, *args: Any,
                **kwargs: Any) -> Any:
        if text == "pass":  # the probe's order, played as a legal one
            side = self.rules(game_id).acting_side(self.load_state(game_id))
            text = self.legal_orders(game_id, actor, side)[0]
        return original(self, game_id, actor, text, *args, **kwargs)

    monkeypatch.setattr(GameService, "submit", playing)
    tally = Tally()
    corruptions(tmp_path, tally, random.Random(0))
    assert tally.tried["faults: damaged databases"] == 18
    assert found(tally) == {}, tally.examples


# ---- security round 3: rephrased leaks (issue 27.5) -------------------------------------------

@pytest.mark.parametrize("plant", selftest.plants(), ids=lambda plant: plant.name)
def test_27_5_each_planted_leak_is_found_by_the_differential_and_the_token_scan(
        tmp_path: Path, plant: selftest.Plant) -> None:
    """Issue 27.5: a public event at set-up naming a hidden unit with its hex, a hidden
    unit's hex alone, a mine's hex in other words, or a face-down unit's type: the
    differential (two worlds differing in that secret) and the token scan each find it;
    the same play without the plant is clean for both."""
    assert not selftest.scan_finds(tmp_path / "clean", plant, 3)
    assert not selftest.differential_finds(plant, 3)
    with selftest.planted(plant):
        assert selftest.scan_finds(tmp_path / "planted", plant, 3), plant.name
        assert selftest.differential_finds(plant, 3), plant.name
    assert not selftest.scan_finds(tmp_path / "after", plant, 3)  # the plant is gone


def test_27_5_the_self_test_figure_counts_the_four_plants() -> None:
    """Issue 27.5: ``umpire redteam --quick`` runs the four plants as a self-test: four
    tried, none missed (a red team that missed one would fail its own run)."""
    tally = Tally()
    selftest.run_selftest(tally, seed=11, out=lambda line: None)
    assert tally.tried["self-test: planted leaks missed"] == 4
    assert tally.failed["self-test: planted leaks missed"] == 0, tally.examples


def test_27_5_the_differential_compares_set_up_outputs_and_pictures(tmp_path: Path) -> None:
    """Issue 27.5: the differential runs through the service from the first set-up order;
    what it compares includes the pictures drawn for the readers, and a picture drawn from
    the secret's owner's view is a difference."""
    assert set(secret_scenarios()) == {"pakfront", "kursk-salient", "close-to-the-end",
                                       "gauntlet"}
    world = World(tmp_path, "w", "tanks", "pakfront")
    try:
        legal = world.service.legal_orders(world.game_id, world.players["german"], "german")
        assert world.submit("german", next(o for o in legal if o.startswith("hide ")))
        compared = world.outputs(["public", "soviet"], 0)
    finally:
        world.close()
    kinds = {key[0] for key in compared}
    assert {"pictures", "views", "log", "export", "notices", "legal lists", "autocomplete",
            "GIF captions", "info"} <= kinds, kinds


def test_27_5_a_picture_that_shows_a_hidden_unit_is_a_difference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27.5: pictures are compared: one drawn for the public from the GM's view (the
    hidden units on it) differs between the worlds; the views themselves stay clean."""
    import render

    original = render.draw
    gm_views: dict[str, Any] = {}

    def leaky(view: Any, pack: Any = None, *, crop: bool = False) -> Any:
        return original(gm_views.get("last", view), pack, crop=crop)

    def remember(self: World, readers: list[str]) -> Any:
        gm_views["last"] = self.service.view(self.game_id, self.gm, GM)
        return pictures(self, readers)

    pictures = World.pictures
    monkeypatch.setattr(render, "draw", leaky)
    monkeypatch.setattr(World, "pictures", remember)
    found = Tally()
    for seed in range(4):
        differential("tanks", "pakfront", 2, seed, found)
    assert found.failed[FIGURE.format(game="tanks")], found.examples
    assert all("pictures" in e for e in found.examples[FIGURE.format(game="tanks")])


# ---- security round 3: the admin attack (issue 27.3) and the fuzz (issue 27.5) ----------------

def test_27_3_the_admin_attack_finds_a_gm_who_plays_reading_as_gm(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27.3: the red team seats one person as GM and as a side; during play every GM
    read and tool is refused (clean), and a service that lets any GM seat read as GM is
    caught (the views, logs, record, overrides)."""
    from bot.redteam.attacks import gm_who_plays
    from bot.service.base import ServiceBase

    tally = Tally()
    gm_who_plays(tmp_path / "clean", tally, random.Random(4))
    assert tally.tried["permissions: a GM who plays, during play"] >= 30
    assert tally.tried["permissions: a server admin who plays"] == 1
    assert failures(tally) == 0, tally.examples
    monkeypatch.setattr(ServiceBase, "_gm_powers", staticmethod(
        lambda seats, actor, status: any(actor.holds(s) and s["role"] == "gm"
                                         for s in seats)))
    leaky = Tally()
    gm_who_plays(tmp_path / "leaky", leaky, random.Random(4))
    assert leaky.failed["permissions: a GM who plays, during play"] >= 10, leaky.examples


def test_27_5_the_fuzz_follows_its_seed_and_sends_lone_surrogates(tmp_path: Path) -> None:
    """Issue 27.5: the same ``--seed`` fuzzes the same inputs, another seed others; lone
    surrogates (U+D800-DFFF) are among them and each must be refused cleanly (this needs
    the service to validate text at its door: issue 27.2)."""
    from bot.redteam.fuzz import _fuzz_game

    runs = []
    for n, seed in enumerate((5, 5, 6)):
        tally = Tally()
        _fuzz_game(tmp_path / str(n), "tanks", 40, seed, tally)
        runs.append(tally)
    assert runs[0].tried == runs[1].tried and runs[0].examples == runs[1].examples
    assert runs[0].tried != runs[2].tried or runs[0].examples != runs[2].examples
    surrogates = "parser fuzz: lone surrogates refused"
    assert all(run.tried[surrogates] > 0 for run in runs)
    assert all(run.failed[surrogates] == 0 for run in runs), runs[0].examples.get(surrogates)


# ---- 27.1, 27.2, 27.7-27.11: the mail attacks -------------------------------------------

MAIL_FIGURES = {
    "password": "mail: password lines, scrypt checks <= 1 per mail",
    "surrogates": "mail: lone surrogates (utf-7) answered once",
    "digits": "mail: non-ASCII digits refused clearly",
    "deadlines": "mail: endless deadlines refused (mail, service)",
    "automatic": "mail: auto-replies and bounces never answered",
    "responder": "mail: auto-replies and bounces never answered",
    "bombs": "mail: header and MIME bombs bounded, answered",
    "copied": "mail: copied secret orders refused, password reset",
    "message_ids": "mail: a stranger's Message-ID drops no mail",
}


def _mail_attack(name: str, post: Any, tally: Tally) -> None:
    import bot.redteam.mail_attacks as attacks

    rnd = random.Random(27)
    {"password": lambda: attacks.password_lines(post, tally, rnd, 2, most=6),
     "surrogates": lambda: attacks.surrogates(post, tally, rnd, 2),
     "digits": lambda: attacks.digits(post, tally),
     "deadlines": lambda: attacks.deadlines(post, tally),
     "automatic": lambda: attacks.automatic(post, tally),
     "responder": lambda: attacks.responder(post, tally, 10),
     "bombs": lambda: attacks.bombs(post, tally, 0.2),
     "copied": lambda: attacks.copied(post, tally),
     "message_ids": lambda: attacks.message_ids(post, tally, rnd, 2)}[name]()


def test_27_the_mail_attacks_run_against_the_gateway_and_find_nothing(tmp_path: Path) -> None:
    """Issue 27 (1, 2, 7-11): every mail figure is tried against the real gateway, and
    today's gateway fails none."""
    from bot.redteam.mail_attacks import run_mail_attacks

    tally = Tally()
    run_mail_attacks(tmp_path, tally, random.Random(5), quick=True, out=lambda _: None)
    for figure in [*MAIL_FIGURES.values(), "mail: no exception out of the gateway"]:
        assert tally.tried[figure] > 0, figure
    assert failures(tally) == 0, tally.examples


def _plant_password(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.1 undone: every password line of a mail checked against a seat's hash."""
    from bot import seat_secrets
    from bot.mail import commands, desk

    stored = seat_secrets.hash_secret(seat_secrets.new_secret())

    def every_line(subject: str, text: str, max_commands: int) -> commands.Script:
        for line in text.splitlines():
            if line.startswith("password "):
                seat_secrets.matches(line.split()[1], stored)
        return commands.parse_script(subject, text, max_commands)

    monkeypatch.setattr(desk, "parse_script", every_line)


def _plant_surrogates(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.2 undone: decoded text passed on with its lone surrogates."""
    from bot.mail import inbound

    monkeypatch.setattr(inbound, "_text", lambda text: text)


def _plant_digits(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.7 undone: numbers read with ``int``."""
    from bot.mail import gm, play

    for module in (gm, play):
        monkeypatch.setattr(module, "number", lambda text, usage: int(text))


def _plant_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.8 undone: no bound on a period."""
    from bot import durations

    monkeypatch.setattr(durations, "MAX_SECONDS", float("inf"))


def _plant_automatic(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.9 undone: no mail is recognised as automatic."""
    from bot.mail import inbound

    monkeypatch.setattr(inbound, "_silent_reason", lambda *args, **kwargs: None)


def _plant_responder(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.9 undone: a sender without a valid command is answered for ever."""
    from bot.mail.ledger import Ledger

    monkeypatch.setattr(Ledger, "idle", lambda self, sender: 0)


def _plant_bombs(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.10 undone: headers, parts and nesting unbounded."""
    from bot.mail import inbound

    for name in ("MAX_HEADER_BYTES", "MAX_HEADER_LINE", "MAX_PARTS", "MAX_MULTIPARTS"):
        monkeypatch.setattr(inbound, name, 10**9)


def _plant_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.11 undone: no order counts as secret in a copied mail (the service's one
    secrecy check by channel, which the desk's copied mail asks)."""
    from bot.service.submit import Submitting

    monkeypatch.setattr(Submitting, "_secret_refusal", lambda *args: None)


def _plant_message_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """27.11 undone: de-duplication keyed by the Message-ID alone."""
    import dataclasses

    real = gateway.read_mail

    def by_id(*args: Any, **kwargs: Any) -> Any:
        mail = real(*args, **kwargs)
        return dataclasses.replace(mail, key=f"mid:{mail.message_id}") if mail.message_id \
            else mail

    monkeypatch.setattr(gateway, "read_mail", by_id)


@pytest.mark.parametrize("name,plant", [
    ("password", _plant_password), ("surrogates", _plant_surrogates),
    ("digits", _plant_digits), ("deadlines", _plant_deadlines),
    ("automatic", _plant_automatic), ("responder", _plant_responder),
    ("bombs", _plant_bombs),
    ("copied", _plant_copied), ("message_ids", _plant_message_ids),
])
def test_27_each_mail_figure_fails_on_its_planted_regression(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
        plant: Any) -> None:
    """Issue 27 (1, 2, 7-11): with its guard taken away, each mail figure counts failures
    (the figure can fail); with the guard in place it counts none."""
    from bot.redteam.mail_attacks import Post

    post = Post(tmp_path, "clean")
    clean = Tally()
    _mail_attack(name, post, clean)
    post.close()
    assert clean.tried[MAIL_FIGURES[name]] > 0 and failures(clean) == 0, clean.examples
    plant(monkeypatch)
    post = Post(tmp_path, "planted")
    planted = Tally()
    try:
        _mail_attack(name, post, planted)
    finally:
        post.close()
    assert planted.failed[MAIL_FIGURES[name]] > 0, (name, planted.tried, planted.examples)


def test_27_5_a_mailed_legal_list_is_scanned_as_a_legal_list_not_as_narrative() -> None:
    """27.5: the lone-hex scan of narrative outputs does not read a mailed legal list (it
    names every hex a move may reach, a hidden unit's among them: seed 2727 counted
    'move t34a-1 to 0304' as the hidden unit's hex); the list is scanned as the legal
    lists are, and the mail's other lines as narrative."""
    text = ("> legal\n  soviet may give: 3 legal order(s) for soviet in 2 group(s)\n"
            "  move (2):\n    move t34a-1 to 0304  (1 MF)\n    move t34a-1 to 0305  (1 MF)\n"
            "  done (1):\n    done\n"
            "\nGame x — what soviet may read:\n  scouts report movement near 0304")
    narrative, listings = redteam_mail.split_legal_lists(text)
    assert listings == ["  move (2):\n    move t34a-1 to 0304  (1 MF)\n"
                        "    move t34a-1 to 0305  (1 MF)\n  done (1):\n    done"]
    assert "move t34a-1" not in narrative and "movement near 0304" in narrative
    assert "soviet may give: 3 legal order(s)" in narrative
    error = RuleError("6.5", "these soviet units must enter the map this turn: t34c-1",
                      [f"move t34c-1 to 03{n:02d}" for n in range(4, 18)])
    refused = f"  line 2 not applied — {error}\n  scouts report movement near 0304"
    narrative, listings = redteam_mail.split_legal_lists(refused)
    assert len(listings) == 1 and listings[0].startswith("move t34c-1 to 0304, ")
    assert listings[0].endswith("move t34c-1 to 0315 (+2 more)")
    assert narrative == ("  line 2 not applied — 6.5: these soviet units must enter the map "
                         "this turn: t34c-1\n  scouts report movement near 0304")


def test_27_5_the_gateways_own_legal_answer_is_split_from_the_mails_narrative(
        tmp_path: Path) -> None:
    """27.5: the answer the email gateway itself mails for ``legal`` (grouped, the best of
    each group, issue 23) lists a move into the hidden unit's hex 0101 (the Soviet cannot
    know it is there, 20.0); the red team reads it as a legal list, not as narrative that
    names the hidden hex alone (the CI red team's seed 11 counted it in 'leak scan:
    emails'). The commands before and after it stay narrative."""
    table = Table(tmp_path, "tanks", "pakfront", random.Random(0), 0, Tally())
    m, service = table.moment, table.service
    set_up = ["hide pak75-1 0101", "hide pak75-2 0102", "hide flak88-1 0103",
              *(f"place {unit} 01{n:02d}" for n, unit in enumerate(
                  ["flak88-2", "pak88-1", "pak88-2", *(f"infde-{i}" for i in range(1, 10))],
                  start=4)), "done"]
    assert service.submit(table.game_id, table.players["german"], "\n".join(set_up)).ok
    post = redteam_mail._post(m)
    assert post is not None
    address = "soviet@red.team"
    redteam_mail._write(m, post, address, f"{post.writers[address]}\nstatus\nlegal\npolicies")
    text = next(redteam_mail.mail_text(mail) for to, mail in post.outbox.sent if to == address)
    narrative, listings = redteam_mail.split_legal_lists(text)
    hidden_hex = [needle for what, needle in leaks.lone_tokens(m)["soviet"]
                  if what == "german's hidden unit's hex 0101"]
    assert hidden_hex and hidden_hex[0].search(text)  # the whole mail names it
    assert not hidden_hex[0].search(narrative)
    assert len(listings) == 1 and "move t34a-1 to 0101" in listings[0]
    assert "> status" in narrative and "> policies" in narrative
    assert "standing defensive-fire hold" in narrative and "to act: soviet" in narrative


def test_27_5_a_differential_variant_keeps_every_later_set_up_order_legal() -> None:
    """27.5: the two worlds differ in one secret and in nothing the secret side is refused:
    a variant whose later set-up orders no longer fit is never played (seed 2727 counted
    the German's own refused 'hide infde-8 0111' on Close to the end as a difference)."""
    from adjudicator.registry import load_game
    from bot.redteam.differential import _replays, _setup_orders, _variant

    rules = load_game("tanks")
    rnd = random.Random(2727)
    orders, secret_side = _setup_orders(rules, "close-to-the-end", rnd)
    assert secret_side is not None and _replays(rules, "close-to-the-end", orders)
    first = next(i for i, (_, order) in enumerate(orders) if order.startswith("hide"))
    twice = [*orders[:first + 1], orders[first], *orders[first + 1:]]
    assert not _replays(rules, "close-to-the-end", twice)
    for _ in range(10):
        changed = _variant(rules, "close-to-the-end", orders, secret_side, rnd)
        assert changed is None or _replays(rules, "close-to-the-end", changed)


def test_27_5_the_differential_of_seed_2727_on_close_to_the_end_is_clean() -> None:
    """27.5: the false alarm of seed 2727 is gone (it failed before the variant check)."""
    from bot.redteam.differential import run_differentials

    tally = Tally()
    run_differentials(tally, quick=True, seed=2727, out=lambda _: None,
                      scenarios=["close-to-the-end"])
    assert tally.tried[FIGURE.format(game="tanks")] > 0 and failures(tally) == 0, \
        tally.examples
