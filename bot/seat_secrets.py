"""Seat secrets: what proves, besides the address, that a mail comes from a seat's player.

A frontend that cannot authenticate its users itself (email: anyone can write any From
line) gives each seat a secret. The store keeps only a salted scrypt hash of it; the
clear text exists only in the mail that tells the player, and in the player's own mails.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: Letters and digits that cannot be mistaken for one another when copied by hand.
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
#: A generated secret: three groups of four (about 59 bits).
GROUPS, GROUP = 3, 4
#: scrypt cost: 8 MiB and a few tens of milliseconds per check (generated secrets are
#: random; the cost guards the ones a GM chooses).
N, R, P = 2**13, 8, 1
MIN_LENGTH = 8
MAX_LENGTH = 128


class WeakSecret(ValueError):
    """A secret a GM chose that is too short or too long."""


def new_secret() -> str:
    """A fresh random secret, e.g. ``k7qm-x2rf-9dbt``."""
    return "-".join("".join(secrets.choice(ALPHABET) for _ in range(GROUP))
                    for _ in range(GROUPS))


def check_strength(secret: str) -> str:
    """The secret, stripped, if it is acceptable; else :class:`WeakSecret`."""
    secret = secret.strip()
    if len(secret) < MIN_LENGTH:
        raise WeakSecret(f"a seat secret has at least {MIN_LENGTH} characters")
    if len(secret) > MAX_LENGTH or any(c.isspace() for c in secret):
        raise WeakSecret(f"a seat secret is one word of at most {MAX_LENGTH} characters")
    return secret


def hash_secret(secret: str) -> str:
    """``scrypt$N$r$p$SALT$HASH`` (hex) of the stripped secret."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(secret.strip(), salt, N, R, P)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


#: Secrets already checked against a stored hash, in this process only: a player's every
#: mail carries the same secret, and scrypt is slow by design. Keyed by the stored hash and
#: a digest of the secret; bounded.
_CHECKED: dict[tuple[str, bytes], bool] = {}
_CHECKED_MAX = 4096


def matches(secret: str, stored: str | None) -> bool:
    """Whether ``secret`` is the one ``stored`` was made from (constant-time compare)."""
    if not stored or not secret:
        return False
    key = (stored, hashlib.sha256(secret.strip()[:MAX_LENGTH].encode()).digest())
    known = _CHECKED.get(key)
    if known is None:
        known = _check(secret, stored)
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = known
    return known


def _check(secret: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        mine = _scrypt(secret.strip()[:MAX_LENGTH], bytes.fromhex(salt), int(n), int(r),
                       int(p))
    except ValueError:
        return False
    return hmac.compare_digest(mine, bytes.fromhex(digest))


def _scrypt(secret: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024,
                          dklen=32)
