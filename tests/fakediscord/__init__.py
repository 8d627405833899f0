"""A local fake Discord (REST + gateway on 127.0.0.1) for end-to-end tests of the bot."""

from tests.fakediscord.harness import (
    BotFailed,
    Harness,
    Reply,
    gm_and_two_players,
    run_client,
    run_umpire,
)
from tests.fakediscord.server import Channel, FakeDiscord, Message, User

__all__ = ["BotFailed", "Channel", "FakeDiscord", "Harness", "Message", "Reply", "User",
           "gm_and_two_players", "run_client", "run_umpire"]
