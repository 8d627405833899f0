"""Salted commitments to secret choices (a bid, a chosen card): publish a hash now, reveal
the choice and its salt later, and anyone can check they agree.

The salt is drawn from the game's committed dice with the choosing side as its audience, so
it is unguessable while the secret is kept and verifiable once the game's seed is revealed.
"""

from __future__ import annotations

import hashlib

from adjudicator.kernel.dice import Dice

SALT_BYTES = 16


def draw_salt(dice: Dice, label: str, audience: str) -> str:
    """16 random bytes (hex) from the game's dice, seen only by ``audience``."""
    roll = dice.roll(label, count=SALT_BYTES, sides=256, audience=audience)
    return bytes(v - 1 for v in roll.values).hex()


def seal(salt_hex: str, secret: str) -> str:
    """sha256(salt || newline || secret), hex."""
    return hashlib.sha256(bytes.fromhex(salt_hex) + b"\n" + secret.encode()).hexdigest()


def opens(commitment: str, salt_hex: str, secret: str) -> bool:
    return seal(salt_hex, secret) == commitment
