"""The base of every game state: deterministic serialisation and a stable hash."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.kernel.decisions import PendingDecision


def canonical_json(data: Any) -> bytes:
    """Same data -> same bytes: sorted keys, no whitespace, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class GameState(BaseModel):
    """Fields shared by all games. Games subclass it and add their own.

    ``standing`` holds each side's standing orders (decision kind -> policy); they are
    private to their side. ``pending`` is the decision the game is waiting for, if any.
    ``result`` is set when the game is over.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    game: str
    pending: PendingDecision | None = None
    standing: dict[str, dict[str, str]] = Field(default_factory=dict)
    result: str | None = None

    def to_bytes(self) -> bytes:
        return canonical_json(self.model_dump(mode="json"))

    @classmethod
    def from_bytes(cls, data: bytes) -> Self:
        return cls.model_validate_json(data)

    def state_hash(self) -> str:
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def copy_for_apply(self) -> Self:
        """A deep copy that ``apply`` mutates, so a RuleError leaves ``self`` untouched."""
        return self.model_copy(deep=True)
