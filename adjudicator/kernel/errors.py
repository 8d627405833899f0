"""Rule errors that teach: what was wrong, the rule that says so, what is legal instead."""

from __future__ import annotations

#: Where a rule error's text starts to list the legal orders (``8.21: ...; legal: a, b``):
#: a frontend that shows the list its own way cuts the text here.
LEGAL_SEPARATOR = "; legal: "


class RuleError(Exception):
    """An illegal order or decision.

    ``rule`` is the rulebook section ("8.21") or a kernel topic ("turn", "notation").
    ``legal`` lists, where cheap to compute, the orders or values that would be accepted.
    Raising it must leave the game state untouched: ``apply`` works on a copy.
    """

    def __init__(self, rule: str, message: str, legal: list[str] | None = None) -> None:
        self.rule = rule
        self.message = message
        self.legal = list(legal or [])
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.rule}: {self.message}"
        if self.legal:
            shown = ", ".join(self.legal[:12])
            more = f" (+{len(self.legal) - 12} more)" if len(self.legal) > 12 else ""
            text += f"{LEGAL_SEPARATOR}{shown}{more}"
        return text


class NotationError(RuleError):
    """Text that is not an order in the game's notation (bad verb, unknown name)."""

    def __init__(self, message: str, legal: list[str] | None = None) -> None:
        super().__init__("notation", message, legal)
