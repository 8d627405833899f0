"""Settings of ``umpire bot``: the token (from $DISCORD_TOKEN or a config file), the guild
to sync commands to, the GM role. The token is never printed or logged; a config file holding
it must be readable by its owner only (mode 0600, :mod:`bot.config_secrets`)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from bot.config_secrets import ExposedSecret, require_owner_only
from bot.discord.permissions import DEFAULT_GM_ROLE

TOKEN_ENV = "DISCORD_TOKEN"


class SettingsError(Exception):
    pass


class Token:
    """A secret string that never shows itself in reprs, logs or tracebacks."""

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Token(***)"

    __str__ = __repr__


@dataclass
class Settings:
    token: Token
    guild_id: int | None = None
    gm_role: str = DEFAULT_GM_ROLE
    extra_games: list[str] = field(default_factory=list)
    #: The web pages' base URL (``web_url``; ``--web-url`` wins), docs/web.md.
    web_url: str | None = None


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir("umpire", appauthor=False)) / "discord.toml"


def load_settings(config: Path | None = None, guild_id: int | None = None,
                  gm_role: str | None = None, extra_games: Sequence[str] = (),
                  environ: dict[str, str] | None = None) -> Settings:
    """Command-line values win over the config file; $DISCORD_TOKEN wins over its token."""
    env = dict(os.environ if environ is None else environ)
    path = config or default_config_path()
    data: dict[str, object] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise SettingsError(f"cannot read {path}: {error}") from error
    elif config is not None:
        raise SettingsError(f"no config file at {path}")
    token = env.get(TOKEN_ENV) or data.get("token")
    if not isinstance(token, str) or not token.strip():
        raise SettingsError(f"no Discord bot token: set ${TOKEN_ENV} or put token = \"...\" "
                            f"in {path} (mode 0600)")
    if "token" in data:
        try:
            require_owner_only(path, "the Discord token", TOKEN_ENV)
        except ExposedSecret as error:
            raise SettingsError(str(error)) from None
    guild = guild_id if guild_id is not None else data.get("guild")
    if guild is not None and not isinstance(guild, int):
        raise SettingsError(f"guild in {path} must be a number (the server's id)")
    role = gm_role or data.get("gm_role") or DEFAULT_GM_ROLE
    listed = data.get("games") or []
    if not isinstance(listed, list):
        raise SettingsError(f"games in {path} must be a list of registered game names")
    games = list(extra_games) or [str(g) for g in listed]
    web_url = data.get("web_url")
    if web_url is not None and not isinstance(web_url, str):
        raise SettingsError(f"web_url in {path} must be a URL (https://...)")
    return Settings(Token(token.strip()), guild, str(role), games, web_url or None)
