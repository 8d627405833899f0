"""Optional rules chosen when a game is created (22): side determination by secret bids
(22.1), cards for the attack dice (22.2, 22.21) and Feints (22.22).

**Bids (22.11-22.13).** Before the setup each side's player bids, secretly, the Victory
Points he concedes for command of the Germans (``bid N``, any whole number). Each bid is
sealed at once — ``sha256(salt, bid)`` published, the salt drawn from the game's dice for
that side only — and both are revealed together when the second is in. The higher bid
commands the Germans: if that is the player seated as the Russian, the seats are exchanged
(event ``seats-swapped``; the service moves the players). Equal bids: a die roll, 1-3 the
German seat keeps the Germans. The winning bid is taken from the German score at the end
of every week (22.12, :mod:`victory`).

**Cards (22.21).** Each side turns over a card from its own deck instead of rolling the two
attack dice: one 36-card deck per side (the pack's ``cards`` table), reshuffled when used up;
which card comes up is drawn from the game's committed dice. Every other roll stays a dice
roll (Rubble Entrance, Fortification, Crossing, the German impulse DR when he makes no
attack, retreats, Counter-Battery, Attrition, Refit...).

**Feints (22.22).** Each side secretly picks one of its remaining cards for every attack —
the attacker first, then the defender, neither seeing the other's — sealed like a bid and
revealed together.
"""

from __future__ import annotations

from adjudicator.kernel.decisions import Option, PendingDecision
from adjudicator.kernel.dice import Dice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.salted import draw_salt, seal
from adjudicator.stalingrad.context import Ctx
from adjudicator.stalingrad.sides import GERMAN, RUSSIAN, SIDES, other
from adjudicator.stalingrad.state import Battle, Sealed


def private(ctx: Ctx, side: str, kind: str, text: str, rule: str, **data: object) -> None:
    ctx.events.append(Event(kind=kind, text=text, audience=side, rule=rule, data=dict(data)))


# ---- 22.1 side determination --------------------------------------------------------------------


def bidder(state_bids: dict[str, Sealed]) -> str | None:
    """The side whose player has still to bid."""
    return next((s for s in SIDES if f"bid:{s}" not in state_bids), None)


def do_bid(ctx: Ctx, side: str, value: int, dice: Dice) -> None:
    state = ctx.state
    if state.phase != "bids":
        raise RuleError("22.11", "bids are made before the game begins")
    if f"bid:{side}" in state.secrets:
        raise RuleError("22.11", "your bid is in; it is revealed with the other")
    if not -99 <= value <= 99:
        raise RuleError("22.11", "a bid is a number of Victory Points, -99 to 99")
    salt = draw_salt(dice, f"{side} bid salt", side)
    sealed = Sealed(value=str(value), salt=salt, commitment=seal(salt, str(value)))
    state.secrets[f"bid:{side}"] = sealed
    private(ctx, side, "bid", f"your bid: {value} Victory Points", "22.11", value=value)
    ctx.emit("bid-sealed", f"the {side} player has made his bid (commitment "
             f"{sealed.commitment})", "22.11", side=side, commitment=sealed.commitment)
    if bidder(state.secrets) is None:
        resolve_bids(ctx, dice)


def resolve_bids(ctx: Ctx, dice: Dice) -> None:
    """22.11-22.13: reveal both, the higher commands the Germans; a tie goes by a die."""
    state = ctx.state
    german = state.secrets.pop(f"bid:{GERMAN}")
    russian = state.secrets.pop(f"bid:{RUSSIAN}")
    g, r = int(german.value), int(russian.value)
    ctx.emit("bids-revealed", f"the bids: the German seat {g}, the Russian seat {r} "
             f"(salts {german.salt}, {russian.salt})", "22.11", german=g, russian=r,
             german_salt=german.salt, russian_salt=russian.salt,
             german_commitment=german.commitment, russian_commitment=russian.commitment)
    if g == r:
        roll = dice.roll("tied bids dr", count=1)
        keep = ctx.board.tables.bids.tie_german_max_dr
        winner = GERMAN if roll.total <= keep else RUSSIAN
        ctx.emit("bids-tied", f"the bids are tied: dr {roll.total}, the {winner} seat's "
                 "player commands the Germans (22.13)", "22.13", dr=roll.total)
    else:
        winner = GERMAN if g > r else RUSSIAN
    bid = g if winner == GERMAN else r
    state.options["german_bid"] = bid
    if winner == RUSSIAN:
        ctx.emit("seats-swapped", "the player seated as the Russian bid higher: he commands "
                 "the Germans, and the other player the Russians — the seats are exchanged",
                 "22.11", swap=list(SIDES))
    ctx.emit("side-determination", f"the German player concedes {bid} Victory Point(s) at "
             "the end of every week (22.12)", "22.12", bid=bid)
    after = state.options.get("after_bids")
    state.phase = "setup" if after == "setup" else "rubble"


# ---- 22.2 cards ---------------------------------------------------------------------------------


def full_deck(ctx: Ctx) -> list[int]:
    return sorted(value for value, count in ctx.board.tables.cards.deck for _ in range(count))


def deck_of(ctx: Ctx, side: str) -> list[int]:
    """``side``'s remaining cards, reshuffled (a fresh deck) once all are used (22.21)."""
    deck = ctx.state.decks.get(side)
    if not deck:
        deck = ctx.state.decks[side] = full_deck(ctx)
        ctx.emit("reshuffle", f"the {side} deck is reshuffled ({len(deck)} cards)", "22.21",
                 side=side)
    return deck


def card_name(ctx: Ctx, value: int) -> str:
    """A card by its value, a court card by its name too ("Jack (11)", 22.21; the pack's
    ``cards.names``)."""
    name = ctx.board.tables.cards.names.get(str(value))
    return f"{name} ({value})" if name else str(value)


def draw_card(ctx: Ctx, side: str, dice: Dice, what: str) -> int:
    deck = deck_of(ctx, side)
    roll = dice.roll(f"{side.capitalize()} card ({what})", count=1, sides=len(deck))
    value = deck.pop(roll.total - 1)
    ctx.emit("card", f"{side} turns over a {card_name(ctx, value)} ({len(deck)} left)", "22.21",
             side=side, value=value, left=len(deck))
    return value


def draw_battle(ctx: Ctx, battle: Battle, dice: Dice) -> bool:
    """The attack's two DRs as cards (22.21); with Feints ask the attacker first (22.22).
    Returns True when the DRs are set, False when a decision is now pending."""
    if ctx.state.options.get("feints"):
        ask_card(ctx, battle, battle.side)
        return False
    battle.attack_dr = draw_card(ctx, battle.side, dice, battle.area)
    battle.defense_dr = draw_card(ctx, other(battle.side), dice, battle.area)
    return True


def middle_card(ctx: Ctx, values: list[int]) -> int:
    """The standing order ``card middle``: the card nearest the deck's average (7, 22.21),
    the higher on a tie."""
    deck = ctx.board.tables.cards.deck
    average = sum(v * n for v, n in deck) / sum(n for _, n in deck)
    return min(values, key=lambda v: (abs(v - average), -v))


def ask_card(ctx: Ctx, battle: Battle, side: str) -> None:
    deck = deck_of(ctx, side)
    values = sorted(set(deck))
    battle.stage = "cards"
    ctx.state.pending = PendingDecision(
        kind="card", side=side, rule="22.22",
        prompt=f"choose your card for the attack on {battle.area} — secretly: the other side "
               f"sees it only when both are chosen ({len(deck)} left)",
        options=tuple(Option(order=f"decide card {v}", label=f"{card_name(ctx, v)} "
                             f"(you hold {deck.count(v)})") for v in values),
        default=f"decide card {middle_card(ctx, values)}",
        data={"area": battle.area, "values": values},
    )


def answer_card(ctx: Ctx, side: str, value: int, dice: Dice) -> bool:
    """A Feint (22.22): seal the chosen card; once both are in, reveal them and return
    True (the attack goes on), else ask the defender and return False."""
    battle = ctx.state.battle
    assert battle is not None
    deck = deck_of(ctx, side)
    if value not in deck:
        raise RuleError("22.22", f"you hold no {card_name(ctx, value)}",
                        [f"decide card {v}" for v in sorted(set(deck))])
    ctx.state.pending = None
    salt = draw_salt(dice, f"{side} card salt", side)
    sealed = Sealed(value=str(value), salt=salt, commitment=seal(salt, str(value)))
    ctx.state.secrets[f"card:{side}"] = sealed
    private(ctx, side, "card-chosen", f"you play a {card_name(ctx, value)}", "22.22", value=value)
    ctx.emit("card-sealed", f"{side} has chosen a card (commitment {sealed.commitment})",
             "22.22", side=side, commitment=sealed.commitment)
    if side == battle.side:
        ask_card(ctx, battle, other(side))
        return False
    attack = ctx.state.secrets.pop(f"card:{battle.side}")
    defense = ctx.state.secrets.pop(f"card:{other(battle.side)}")
    for who, chosen in ((battle.side, attack), (other(battle.side), defense)):
        ctx.state.decks[who].remove(int(chosen.value))
    battle.attack_dr, battle.defense_dr = int(attack.value), int(defense.value)
    ctx.emit("cards-revealed", f"the cards: {battle.side} {card_name(ctx, battle.attack_dr)}, "
             f"{other(battle.side)} {card_name(ctx, battle.defense_dr)} (salts {attack.salt}, "
             f"{defense.salt})", "22.22", attack=battle.attack_dr, defense=battle.defense_dr,
             attack_salt=attack.salt, defense_salt=defense.salt,
             attack_commitment=attack.commitment, defense_commitment=defense.commitment)
    battle.stage = "rolled"
    return True
