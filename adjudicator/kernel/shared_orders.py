"""The orders every game shares, declared once in the kernel's own order spec.

``standing KIND POLICY`` (``standing KIND off`` clears it) sets a side's standing order
for a kind of decision; ``resign`` gives the game up. They are parsed, formatted and
explained from :data:`SHARED_SPEC` like any game's orders (``Game.parse``, ``Game.format``
and ``Game.help`` ask it for these verbs), so no game declares them again.

>>> SHARED_SPEC.format(SHARED_SPEC.parse("Standing Casualties  OFF"))
'standing casualties off'
"""

from __future__ import annotations

from adjudicator.kernel.orders import Resign, SetStanding, words
from adjudicator.kernel.spec import Kind, Names, OrderSpec, Verb, plain


def _word(words_: list[str], names: Names) -> str:
    return " ".join(plain(words_)).lower()


#: A kind of decision (``casualties``, ``advantage``); the game checks it when applied.
DECISION_KIND = Kind("decision-kind", "KIND", "a kind of decision (the game's 'policies')",
                     read=_word)
def _policy(words_: list[str], names: Names) -> str | None:
    policy = _word(words_, names)
    return None if policy == "off" else policy


#: A standing policy for that kind (``hold``, ``reroll-bad``); ``off`` clears it.
POLICY = Kind("policy", "POLICY", "a policy for that kind of decision, or off",
              read=_policy)

SHARED_SPEC = OrderSpec("shared", [
    Verb(SetStanding, ("standing KIND:kind POLICY:policy", "standing KIND:kind off"),
         "answer a kind of decision at once (standing KIND off clears it); the game's "
         "kinds and policies: 'policies' (console), /game standing (Discord)", (),
         ("standing casualties hold", "standing casualties off")),
    Verb(Resign, ("resign",), "give the game up: the other side wins", (), ("resign",)),
], kinds={"KIND": DECISION_KIND, "POLICY": POLICY})


def shared_verb(text: str) -> bool:
    """Whether a line (or a help topic) is one of the shared orders: its first word is
    exactly ``standing`` or ``resign`` (no abbreviation: a game's own verbs may share a
    prefix with them)."""
    parts = words(text)
    return bool(parts) and parts[0].lower() in SHARED_SPEC.first_words()
