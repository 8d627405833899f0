"""Secrets: hidden placement (20.0) and mines (19.0) never reach the public or the opponent.

Two independent checks, each shown to catch a deliberately leaky variant of the game:

* a scan of every public and opposing view and every event they may see, after every
  order of a played game, for the id, hex or mine of any secret not yet revealed;
* non-interference: two games that differ only in one side's secrets, given the same
  orders, must look exactly alike to the public and to the opponent until the first
  reveal — any difference is information about the secrets.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable

import pytest

from adjudicator.kernel.dice import CommittedDice, FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event, visible_to
from adjudicator.tanks.context import Ctx
from adjudicator.tanks.game import TanksGame
from adjudicator.tanks.hidden import verify_commitment
from adjudicator.tanks.sides import other
from adjudicator.tanks.state import TanksState
from adjudicator.tanks.views import TanksView, build_view
from tests.tanks.test_rules_play import check_invariants, choose

REVEALS = ("revealed", "mine-revealed", "secrets-revealed", "face-up")


class LeakyViewGame(TanksGame):
    """Deliberately wrong: shows every viewer the GM's picture of the board."""

    def make_view(self, state: TanksState, viewer: str) -> TanksView:
        view = build_view(Ctx(self.data, state), self.name, "gm")
        view.viewer = viewer
        return view


class LeakyEventGame(TanksGame):
    """Deliberately wrong: announces hidden placements to everyone."""

    def resolve(self, state: TanksState, side: str, order: object, dice: object) -> list[Event]:
        events = super().resolve(state, side, order, dice)  # type: ignore[arg-type]
        return [e.model_copy(update={"audience": "public"}) if e.kind == "hidden-placed" else e
                for e in events]


def secrets_of(state: TanksState) -> tuple[set[str], set[str], set[str]]:
    """Unrevealed hidden unit ids and hexes, and unrevealed mined hexes."""
    ids = {u.id for u in state.units if u.hidden and u.status == "on"}
    hexes = {u.hex for u in state.units if u.hidden and u.status == "on" and u.hex}
    mines = {h for hexes_ in state.mines.values() for h in hexes_} - set(state.known_mines)
    return ids, hexes, mines


def scan(game: TanksGame, state: TanksState, events: Iterable[Event], owners: set[str]) -> None:
    """Fail if the public or a non-owning side may see a secret."""
    ids, hexes, mines = secrets_of(state)
    for viewer in ["public", *(other(o) for o in owners)]:
        view = game.view(state, viewer)
        dumped = view.model_dump(mode="json")
        text = json.dumps(dumped)
        for unit_id in ids:
            assert unit_id not in text, f"{viewer} view names hidden unit {unit_id}"
        for unit in dumped["units"]:
            assert unit["hex"] not in hexes, f"{viewer} view shows a unit in hidden hex"
            assert not unit["hidden"], f"{viewer} view shows a hidden unit"
        for mine in dumped["mines"]:
            assert mine not in mines, f"{viewer} view shows unrevealed mine {mine}"
        for event in visible_to(events, viewer):
            said = event.text + json.dumps(event.data)
            for unit_id in ids:
                assert unit_id not in said, f"{viewer} told of {unit_id}: {event.text}"
            if event.kind in ("hidden-placed", "mine-placed"):
                raise AssertionError(f"{viewer} sees a secret placement: {event.text}")


def play_scanned(game: TanksGame, scenario: str, seed: int, steps: int = 1500) -> TanksState:
    rng = random.Random(seed)
    state = game.setup(scenario)
    dice = CommittedDice(seed.to_bytes(32, "big"), scenario)
    owners = set(state.flags.get("hidden", {})) | set(state.flags.get("mines", {}))
    for _ in range(steps):
        if state.result is not None:
            break
        side = game.acting_side(state)
        assert side is not None
        for order in choose(game, state, side, rng):
            try:
                outcome = game.apply_text(state, side, order, dice)
            except RuleError as error:
                assert not any(s in str(error) for s in secrets_of(state)[0])
                continue
            break
        else:
            raise AssertionError("no order accepted")
        state = outcome.state
        scan(game, state, outcome.events, owners)
        check_invariants(game, state)
    return state


#: The longer scanned games: their first orders in the default run, to the end in the soak.
LONGER = ("kursk-salient", "close-to-the-end")
FIRST_ORDERS = 60


@pytest.mark.parametrize("scenario", [
    "pakfront", *(pytest.param(s, marks=pytest.mark.soak) for s in LONGER)])
def test_no_secret_reaches_public_or_opponent_before_reveal_20_0_19_1(scenario: str) -> None:
    """A random game scanned after every order, to its end, where every side's secrets are
    published and check out (the longer games to the end in the soak stage)."""
    state = play_scanned(TanksGame(), scenario, seed=11)
    assert state.result is not None
    for secret in state.secrets.values():  # published at the end, and they check out
        assert secret.revealed
        assert verify_commitment(secret.commitment, secret.salt, secret.entries)


@pytest.mark.parametrize("scenario", LONGER)
def test_no_secret_reaches_public_or_opponent_in_the_first_orders_20_0_19_1(
        scenario: str) -> None:
    """The first orders of the longer scanned games above (to the end in the soak stage)."""
    state = play_scanned(TanksGame(), scenario, seed=11, steps=FIRST_ORDERS)
    assert state.result is None and any(secrets_of(state))  # secrets still held


@pytest.mark.parametrize("leaky", [LeakyViewGame, LeakyEventGame])
def test_the_scan_catches_a_leaky_game(leaky: type[TanksGame]) -> None:
    with pytest.raises(AssertionError):
        play_scanned(leaky(), "pakfront", seed=11, steps=60)


# ---- non-interference ------------------------------------------------------------------------


def pakfront_setup(hidden_hexes: list[str]) -> list[str]:
    """German set-up lines: four infantry shown in row 22, the rest hidden where given."""
    lines = [f"place infde-{n} {hex_}" for n, hex_ in
             zip(range(1, 5), ["0522", "1022", "2022", "2522"], strict=True)]
    hidden = [f"infde-{n}" for n in range(5, 10)] + [
        "pak75-1", "pak75-2", "flak88-1", "flak88-2", "pak881", "pak88-2"]
    hidden = [h if h != "pak881" else "pak88-1" for h in hidden]
    lines += [f"hide {unit} {hex_}" for unit, hex_ in zip(hidden, hidden_hexes, strict=True)]
    return [*lines, "done"]


def mines_setup(state: TanksState, game: TanksGame, mine_hexes: list[str]) -> list[str]:
    """Soviet set-up for 25.3: units placed by the same rule in both worlds, mines as given."""
    ctx = Ctx(game.data, state)
    lines, used = [], set(mine_hexes)
    free = iter(h for h in ctx.map.all_hexes
                if h.col >= 12 and h.row >= 15 and ctx.terrain(str(h)) == "clear")
    for unit in [u for u in state.units if u.side == "soviet"]:
        hex_ = str(next(free))
        while hex_ in used:
            hex_ = str(next(free))
        used.add(hex_)
        lines.append(f"place {unit.id} {hex_}")
    return [*lines, *(f"mine {h}" for h in mine_hexes), "done"]


def public_picture(game: TanksGame, state: TanksState, events: list[Event],
                   viewer: str) -> str:
    view = game.view(state, viewer).model_dump(mode="json")
    view.pop("commitments")  # a hash of the secrets: different by design, and opaque
    said = [(e.kind, e.text, e.data) for e in visible_to(events, viewer)
            if e.kind != "commitment"]
    return json.dumps([view, said], sort_keys=True)


def run_worlds(game: TanksGame, scenario: str, setups: tuple[list[str], list[str]],
               owner: str, seed: int, steps: int = 400) -> int:
    """Play two worlds in lockstep; returns how many orders matched before a reveal."""
    rng = random.Random(seed)
    worlds = []
    for lines in setups:
        state = game.setup(scenario)
        dice = FixedDice([1] * 16 + [3] * 4000)  # the same dice in both worlds
        for line in lines:
            state = game.apply_text(state, owner, line, dice).state
        worlds.append((state, dice))
    watcher = other(owner)
    compared = 0
    for _ in range(steps):
        (a, _dice_a), (b, _dice_b) = worlds
        if a.result is not None:
            break
        side = game.acting_side(a)
        assert side == game.acting_side(b)
        assert side is not None
        legal = game.legal_orders(a, side) if side == watcher else ["done"]
        if side == watcher:
            assert legal == game.legal_orders(b, side), "legal orders depend on a secret"
        order = next(o for o in choose(game, a, side, rng, legal) if o in legal) \
            if side == watcher else "done"
        results = []
        for state, dice in worlds:
            try:
                outcome = game.apply_text(state, side, order, dice)
                results.append((outcome.state, outcome.events, None))
            except RuleError as error:
                results.append((state, [], str(error)))
        errors = {r[2] for r in results}
        assert len(errors) == 1, f"the same order is judged differently: {errors}"
        if any(e.kind in REVEALS for r in results for e in r[1]):
            return compared
        for viewer in ("public", watcher):
            pictures = {public_picture(game, r[0], r[1], viewer) for r in results}
            assert len(pictures) == 1, f"{viewer} can tell the worlds apart after {order!r}"
        worlds = [(r[0], w[1]) for r, w in zip(results, worlds, strict=True)]
        compared += 1
    return compared


HIDDEN_A = ["0816", "1214", "1618", "2015", "2419", "0620", "1021", "1520", "2221", "2720", "3018"]
HIDDEN_B = ["0918", "1316", "1715", "2118", "2616", "0719", "1120", "1419", "2320", "2819", "2916"]


def test_hidden_units_do_not_change_what_the_opponent_sees_20_0() -> None:
    game = TanksGame()
    matched = run_worlds(game, "pakfront", (pakfront_setup(HIDDEN_A),
                                            pakfront_setup(HIDDEN_B)), "german", seed=5)
    assert matched > 20  # a real stretch of play was compared before the first reveal


@pytest.mark.parametrize("steps", [60, pytest.param(400, marks=pytest.mark.soak)])
def test_mines_do_not_change_what_the_opponent_sees_19_1(steps: int) -> None:
    """Compared for 60 orders (until the first reveal, ~160 orders, in the soak stage)."""
    game = TanksGame()
    state = game.setup("kursk-salient")
    a = mines_setup(state, game, ["1214", "1614", "2014", "2414", "2814", "3014"])
    b = mines_setup(state, game, ["1314", "1714", "2114", "2514", "2914", "3114"])
    matched = run_worlds(game, "kursk-salient", (a, b), "soviet", seed=3, steps=steps)
    assert matched > 20


def test_non_interference_catches_a_leaky_game() -> None:
    with pytest.raises(AssertionError):
        run_worlds(LeakyViewGame(), "pakfront",
                   (pakfront_setup(HIDDEN_A), pakfront_setup(HIDDEN_B)), "german", seed=5)


# ---- reveal rules ----------------------------------------------------------------------------


def test_commitment_is_published_at_placement_and_verifies_at_the_end_20_0() -> None:
    game = TanksGame()
    state = game.setup("pakfront")
    dice = FixedDice([7] * 16)
    events: list[Event] = []
    for line in pakfront_setup(HIDDEN_A):
        outcome = game.apply_text(state, "german", line, dice)
        state, events = outcome.state, events + outcome.events
    published = [e for e in visible_to(events, "soviet") if e.kind == "commitment"]
    assert len(published) == 1
    secret = state.secrets["german"]
    assert published[0].data["commitment"] == secret.commitment
    assert verify_commitment(secret.commitment, secret.salt, secret.entries)
    assert not verify_commitment(secret.commitment, secret.salt, [*secret.entries[1:],
                                                                  "hide infde-5 0101"])
    assert "hide infde-5 0816" in secret.entries
    assert game.view(state, "soviet").salts == {}  # the salt stays secret until the end
    assert game.view(state, "german").salts == {"german": secret.salt}
