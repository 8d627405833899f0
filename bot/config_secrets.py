"""The one rule for secrets in files, the same for the Discord bot and the mail gateway.

A secret — the Discord token, a mail password, the password in a database URL — comes from
the environment (``$DISCORD_TOKEN``, ``password_env``, ``$UMPIRE_DB``), or from a file only
its owner may read or write (mode 0600 or stricter). A config file (``discord.toml``,
``mail.toml``) that holds a secret while its group or others may read it is refused, with a
message naming the secret and both ways out (``chmod 600 FILE``, or the environment
variable); the secret itself is never quoted.
"""

from __future__ import annotations

import stat
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

#: Permission bits a secrets file must not have (anything for the group or others).
OPEN_BITS = stat.S_IRWXG | stat.S_IRWXO


class ExposedSecret(ValueError):
    """A file readable by others holds a secret (the message says what to do)."""


def owner_only(path: Path) -> bool:
    """Whether only ``path``'s owner may read or write it (mode 0600 or stricter)."""
    return path.stat().st_mode & OPEN_BITS == 0


def require_owner_only(path: Path, what: str, environment: str) -> None:
    """Refuse a file that holds the secret ``what`` unless it is owner-only (mode 0600)."""
    if not owner_only(path):
        mode = stat.S_IMODE(path.stat().st_mode)
        raise ExposedSecret(
            f"{path} holds {what} but others may read it (mode {mode:04o}): run "
            f"`chmod 600 {path}`, or take {what} out of the file and set ${environment}")


def url_has_password(url: str) -> bool:
    """Whether a database URL carries a password (``user:password@`` or ``password=``)."""
    try:
        parts = urlsplit(url.strip())
        if parts.password:
            return True
        return any(key.lower() in ("password", "sslpassword")
                   for key, _ in parse_qsl(parts.query, keep_blank_values=True))
    except ValueError:
        return "@" in url
