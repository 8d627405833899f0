"""Dice are an input to the rules, never a hidden source of randomness.

* :class:`FixedDice` replays a list of values (tests, conformance cases) and fails
  loudly if a case runs out of dice or leaves some unused.
* :class:`CommittedDice` derives every die from a secret seed with HMAC-SHA256 over
  (game id, branch, roll index, label). The host publishes ``sha256(server_seed)`` when
  the game starts; each player may add a random string of their own, and the effective
  seed mixes them all, so neither the host nor one player decides the dice. After the
  game (or for a GM) the server seed is revealed and :func:`verify` re-derives every roll.
  The branch number changes after every rollback, so rolls already seen are not dealt to
  another order; the same order given again from the same position rolls again on the
  stream (branch, first index) it rolled on, so a rollback is no re-roll (the service's
  ``_seen_stream``; a re-roll is the GM's public, logged act).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from adjudicator.kernel.errors import RuleError


class Roll(BaseModel):
    """One recorded roll: ``count`` dice of ``sides`` faces, with the purpose it served."""

    model_config = ConfigDict(frozen=True)

    index: int
    label: str
    values: tuple[int, ...]
    sides: int = 6
    branch: int = 0
    audience: str = "public"

    @property
    def total(self) -> int:
        return sum(self.values)


class Dice(Protocol):
    """What the rules call. ``label`` names the purpose: "German attack DR"."""

    rolls: list[Roll]

    def roll(
        self, label: str, count: int = 2, sides: int = 6, audience: str = "public"
    ) -> Roll: ...


class DiceExhausted(RuleError):
    """A fixed-dice case asked for more dice than it supplied."""

    def __init__(self, label: str) -> None:
        super().__init__("dice", f"no fixed die left for {label!r}")


class RecordingDice:
    """Numbers each roll on its branch and records it; subclasses supply the values."""

    def __init__(self, start_index: int = 0, branch: int = 0) -> None:
        self._next_index = start_index
        self._branch = branch
        self.rolls: list[Roll] = []

    def _record(self, label: str, values: tuple[int, ...], sides: int, audience: str) -> Roll:
        roll = Roll(index=self._next_index, label=label, values=values, sides=sides,
                    branch=self._branch, audience=audience)
        self._next_index += 1
        self.rolls.append(roll)
        return roll


class FixedDice(RecordingDice):
    """Dice that return the given values in order (one value per die)."""

    def __init__(self, values: Iterable[int] = (), start_index: int = 0, branch: int = 0) -> None:
        super().__init__(start_index, branch)
        self._values = list(values)
        self._pos = 0

    @property
    def unused(self) -> list[int]:
        return self._values[self._pos :]

    def roll(self, label: str, count: int = 2, sides: int = 6, audience: str = "public") -> Roll:
        if self._pos + count > len(self._values):
            raise DiceExhausted(label)
        values = tuple(self._values[self._pos : self._pos + count])
        for value in values:
            if not 1 <= value <= sides:
                raise ValueError(f"fixed die {value} is not a face of a d{sides} ({label})")
        self._pos += count
        return self._record(label, values, sides, audience)

    def check_all_used(self) -> None:
        """Fail loudly when a case supplied dice the rules never asked for."""
        if self.unused:
            raise AssertionError(f"unused fixed dice: {self.unused}")


def commitment(server_seed: bytes) -> str:
    """The public commitment published at game start."""
    return hashlib.sha256(server_seed).hexdigest()


def effective_seed(server_seed: bytes, player_entropy: Sequence[str] = ()) -> bytes:
    """Mix the host's seed with every player's contribution (order-independent)."""
    digest = hashlib.sha256(b"umpire-dice-v1\x00" + server_seed)
    for text in sorted(player_entropy):
        digest.update(b"\x00" + text.encode("utf-8"))
    return digest.digest()


def derive_values(
    seed: bytes, game_id: str, branch: int, index: int, label: str, count: int, sides: int
) -> tuple[int, ...]:
    """Unbiased die values for one roll, by rejection sampling over an HMAC stream."""
    message = f"{game_id}\x00{branch}\x00{index}\x00{label}".encode()
    limit = 256 - (256 % sides)
    values: list[int] = []
    block = 0
    while len(values) < count:
        stream = hmac.new(seed, message + b"\x00" + str(block).encode(), hashlib.sha256).digest()
        for byte in stream:
            if byte < limit:
                values.append(byte % sides + 1)
                if len(values) == count:
                    break
        block += 1
    return tuple(values)


class CommittedDice(RecordingDice):
    """Verifiable dice for real games."""

    def __init__(self, seed: bytes, game_id: str, branch: int = 0, start_index: int = 0) -> None:
        super().__init__(start_index, branch)
        self._seed = seed
        self._game_id = game_id

    def roll(self, label: str, count: int = 2, sides: int = 6, audience: str = "public") -> Roll:
        values = derive_values(
            self._seed, self._game_id, self._branch, self._next_index, label, count, sides
        )
        return self._record(label, values, sides, audience)


class VerifyReport(BaseModel):
    """Result of :func:`verify`: ``ok`` only when the seed matches and every roll does."""

    seed_matches: bool
    checked: int
    mismatches: list[str]

    @property
    def ok(self) -> bool:
        return self.seed_matches and not self.mismatches


def verify(
    published_commitment: str,
    server_seed: bytes,
    game_id: str,
    rolls: Iterable[Roll],
    player_entropy: Sequence[str] = (),
) -> VerifyReport:
    """Check a revealed seed against its commitment and re-derive every recorded roll."""
    seed_ok = hmac.compare_digest(commitment(server_seed), published_commitment)
    seed = effective_seed(server_seed, player_entropy)
    mismatches: list[str] = []
    checked = 0
    for roll in rolls:
        expected = derive_values(
            seed, game_id, roll.branch, roll.index, roll.label, len(roll.values), roll.sides
        )
        checked += 1
        if expected != roll.values:
            mismatches.append(
                f"roll {roll.branch}/{roll.index} {roll.label!r}: recorded {list(roll.values)},"
                f" seed gives {list(expected)}"
            )
    return VerifyReport(seed_matches=seed_ok, checked=checked, mismatches=mismatches)
