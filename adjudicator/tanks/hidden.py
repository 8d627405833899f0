"""Secrets: hidden initial placement (20.0), face-down set-up (25.7) and minefields (19.0),
with salted commitments.

When a side finishes placing its secrets, Umpire publishes ``sha256(salt || contents)``.
The salt is 16 bytes drawn from the game's committed dice (audience: that side), so it
is unguessable during play and verifiable afterwards. At the end of the game the salt and
the contents are published; :func:`verify_commitment` lets anyone check them, and every
reveal during play can be matched against the published contents.
"""

from __future__ import annotations

import hashlib
import json

from adjudicator.tanks.context import Ctx
from adjudicator.tanks.state import SecretSet

SALT_BYTES = 16


def secret_entries(ctx: Ctx, side: str) -> list[str]:
    """The canonical, sorted list of a side's secrets."""
    entries = [f"{'hide' if u.hidden else 'place'} {u.id} {u.hex}"
               + (f" face {u.facing}" if u.facing else "")
               for u in ctx.state.units if u.side == side and (u.hidden or u.concealed)
               and u.status == "on"]
    entries += [f"mine {h}" for h in ctx.state.mines.get(side, [])]
    return sorted(entries)


def digest(salt_hex: str, entries: list[str]) -> str:
    payload = json.dumps(sorted(entries), separators=(",", ":")).encode()
    return hashlib.sha256(bytes.fromhex(salt_hex) + b"\n" + payload).hexdigest()


def verify_commitment(commitment: str, salt_hex: str, entries: list[str]) -> bool:
    return digest(salt_hex, entries) == commitment


def commit(ctx: Ctx, side: str) -> None:
    """Draw the salt and publish the commitment to ``side``'s secret set."""
    assert ctx.dice is not None
    roll = ctx.dice.roll(f"{side} secret salt", count=SALT_BYTES, sides=256, audience=side)
    salt = bytes(v - 1 for v in roll.values).hex()
    entries = secret_entries(ctx, side)
    commitment = digest(salt, entries)
    ctx.state.secrets[side] = SecretSet(commitment=commitment, salt=salt, entries=entries)
    ctx.emit("commitment", f"{side} has placed its secret set-up; commitment {commitment}",
             "20.0", side=side, commitment=commitment)


def publish_all(ctx: Ctx) -> None:
    """At the end of the game: every salt and secret set, for anyone to check."""
    for unit in ctx.state.units:
        unit.hidden = unit.concealed = False
    for owner, hexes in ctx.state.mines.items():
        for hex_name in hexes:
            ctx.state.known_mines.setdefault(hex_name, owner)
    for side, secret in sorted(ctx.state.secrets.items()):
        if secret.revealed:
            continue
        secret.revealed = True
        ctx.emit("secrets-revealed",
                 f"{side}'s secret set-up was: {'; '.join(secret.entries) or 'nothing'} "
                 f"(salt {secret.salt}; commitment {secret.commitment})", "20.0",
                 side=side, entries=list(secret.entries), salt=secret.salt,
                 commitment=secret.commitment)
