"""Order models shared by every game.

Each game defines its orders as pydantic models joined in a discriminated union on a
``verb`` field, and one notation for them (like chess SAN): ``parse(text)`` is forgiving
for humans, ``format(order)`` is canonical, and ``parse(format(o)) == o``.

:class:`SetStanding` belongs to every game: ``standing KIND POLICY`` sets a standing
order that answers decisions of that kind at once, ``standing KIND off`` clears it.
:class:`Resign` too: ``resign`` ends the game, the side giving it up.
"""

from __future__ import annotations

import inspect
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from adjudicator.kernel.errors import NotationError


class Order(BaseModel):
    """Base of every order model: immutable, no unknown fields.

    An order model names its verb in its class line, ``class Pass(Order, verb="pass")``;
    the verb becomes its first field, ``verb: Literal["pass"] = "pass"``: the notation's
    name of the order (``OrderSpec``), in every dump of it, refused if another is given.
    A base that is no order of its own (a game's common fields) names none.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    def __init_subclass__(cls, verb: str | None = None, **kwargs: Any) -> None:
        if verb is not None:
            own = inspect.get_annotations(cls)
            if "verb" in own:
                raise TypeError(f"{cls.__name__}: the verb is named once, in the class line")
            cls.__annotations__ = {"verb": Literal[verb], **own}
            cls.verb = verb  # type: ignore[attr-defined]
        super().__init_subclass__(**kwargs)


class SetStanding(Order, verb="standing"):
    """``standing casualties disrupt-first`` / ``standing casualties off``."""

    kind: str
    policy: str | None = None


class Resign(Order, verb="resign"):
    """``resign``: the side gives the game up (at any time while it is not over)."""


#: Input limits. Nothing a player legally writes comes near them; they bound what one
#: submission can cost (a refusal names the limit it hit).
MAX_CHARS = 10_000  # characters in one submission
MAX_LINES = 100  # order lines in one submission
MAX_LINE_CHARS = 1_000  # characters in one order line
MAX_WORDS = 80  # words in one order line (a move's steps, a stack's units)


def check_size(text: str) -> None:
    """Refuse a submission over the size limits (:class:`NotationError` naming the limit)."""
    if len(text) > MAX_CHARS:
        raise NotationError(f"a submission holds at most {MAX_CHARS} characters; this one has "
                            f"{len(text)}")
    lines = [line for line in text.splitlines() if words(line)]
    if len(lines) > MAX_LINES:
        raise NotationError(f"a submission holds at most {MAX_LINES} order lines; this one "
                            f"has {len(lines)}")
    for line in lines:
        check_line(line)


def check_line(line: str) -> None:
    """Refuse one order line over the size limits."""
    if len(line) > MAX_LINE_CHARS:
        raise NotationError(f"an order line holds at most {MAX_LINE_CHARS} characters; this "
                            f"one has {len(line)}")
    count = len(words(line))
    if count > MAX_WORDS:
        raise NotationError(f"an order line holds at most {MAX_WORDS} words (steps, units); "
                            f"this one has {count}")


#: A comma between units or clauses: a token of its own (:func:`tokens`).
COMMA = ","


def tokens(text: str, commas: bool = True) -> list[str]:
    """The one tokenizer of order lines: the words of ``text``, extra spaces and a trailing
    '#...' comment ignored; each comma a token of its own (``commas=False``: commas stay
    inside the words, as :func:`words` reads a line).

    >>> tokens("move a,b to 3  # go")
    ['move', 'a', ',', 'b', 'to', '3']
    >>> tokens("move a,b to 3", commas=False)
    ['move', 'a,b', 'to', '3']
    """
    text = text.split("#", 1)[0]
    return (text.replace(",", f" {COMMA} ") if commas else text).split()


def words(text: str) -> list[str]:
    """Split an order line into words, ignoring extra spaces and a trailing '#...' comment
    (:func:`tokens` with commas kept inside words)."""
    return tokens(text, commas=False)
