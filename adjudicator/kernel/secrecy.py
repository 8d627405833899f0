"""Is this order secret? The one answer, for every frontend and every record.

An order's text is the sender's (and the GM's) only when its verb is declared ``secret``
in the game's order spec (Stalin's Tanks ``hide`` and ``mine``, TP:S bids and cards), or
when the position makes it so (a game's :meth:`~adjudicator.kernel.game.Game.
secret_in_position` hook: a side entering a hidden set-up, a face-down placement, 25.7).
Standing orders are their sender's too, but they are never posted — frontends acknowledge
them to the sender alone — so they may be given anywhere. A line no game can read is kept
private when its first word could abbreviate a secret verb, so a mistyped secret is not
echoed either.

:meth:`Game.secrecy <adjudicator.kernel.game.Game.secrecy>` is the one method frontends,
the service and the log ask; everything else derives from its :class:`Secrecy`.
"""

from __future__ import annotations

from enum import StrEnum

from adjudicator.kernel.orders import words
from adjudicator.kernel.spec import OrderSpec


class Secrecy(StrEnum):
    """How private an order's text is.

    >>> Secrecy.SECRET.hidden and Secrecy.SECRET.private_only
    True
    >>> Secrecy.SENDER.hidden, Secrecy.SENDER.private_only
    (True, False)
    """

    #: Anyone may read it.
    PUBLIC = "public"
    #: A standing order: acknowledged to its sender alone, so it may be given anywhere.
    SENDER = "sender"
    #: Given only privately (a DM, a hidden prompt) and never echoed to anyone else.
    SECRET = "secret"

    @property
    def hidden(self) -> bool:
        """Whether others (not the sender's side, not the GM) may not read the text."""
        return self is not Secrecy.PUBLIC

    @property
    def private_only(self) -> bool:
        """Whether a frontend must refuse the text in a public channel."""
        return self is Secrecy.SECRET


def unreadable_secrecy(spec: OrderSpec, text: str) -> Secrecy:
    """A line the game cannot read: secret when its first word could abbreviate one of the
    spec's secret verbs (``hid`` for ``hide``), so a mistyped secret is not echoed."""
    parts = words(text)
    if not parts:
        return Secrecy.PUBLIC
    head = parts[0].lower()
    return Secrecy.SECRET if any(word.startswith(head) for word in spec.secret_words()) \
        else Secrecy.PUBLIC


def secret_heads(spec: OrderSpec) -> frozenset[str]:
    """The first words (lower case) of every form of ``spec``'s secret verbs: a line led by
    another of the spec's verb words is no secret order by its verb alone (what
    :meth:`Game.secrecy` answers without a position)."""
    return frozenset(form.head[0].text.lower() for entry in spec.verbs if entry.verb.secret
                     for form in entry.forms)
