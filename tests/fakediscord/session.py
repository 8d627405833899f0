"""A scripted session's record: per action, what the fake Discord saw — the thread posts
(with whom they pinged and whether they carried a picture), the DMs, the actor's private
answer — and the checks issue 29 asks of every session: each change of who acts is
posted and pings exactly that side, nobody is pinged for their own action, no picture
repeats the one before it, every DM is private content (no board text, no public map).
``markdown()`` is the transcript kept as docs/discord-session.md."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tests.fakediscord.harness import Harness, Reply
from tests.fakediscord.server import Channel, Message, User


@dataclass
class Step:
    """One action of the session and what Discord showed for it."""

    who: str
    did: str
    answer: str
    posts: list[Message]
    dms: dict[str, list[Message]]
    to_act: str | None


@dataclass
class Session:
    """Runs actions through the fake Discord and keeps what each one caused."""

    h: Harness
    thread: Channel
    players: dict[str, User]  # side -> player
    to_act: Callable[[], str | None]
    steps: list[Step] = field(default_factory=list)
    _seen: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._seen = set(self.h.fake.messages)

    def _new(self) -> list[Message]:
        fresh = [m for m in self.h.fake.messages.values()
                 if m.id not in self._seen and not m.deferred]
        self._seen |= {m.id for m in fresh}
        return fresh

    async def act(self, who: User, did: str, run: Callable[[], Awaitable[Reply | None]]
                  ) -> Step:
        reply = await run()
        fresh = self._new()
        posts = [m for m in fresh if m.channel_id == self.thread.id and not m.ephemeral]
        dms = {name: [m for m in fresh if not m.ephemeral
                      and self.h.fake.channels[m.channel_id].recipient_id == user.id]
               for name, user in self.players.items()}
        answer = (reply.text if reply is not None and reply.record.original is not None
                  and reply.ephemeral else "")
        step = Step(who.name, did, answer, posts, dms, self.to_act())
        self.steps.append(step)
        return step

    # ---- the checks ------------------------------------------------------------------------

    def check(self) -> None:
        """Issue 29's rules over the whole session."""
        ids = {user.id: side for side, user in self.players.items()}
        by_name = {user.name: side for side, user in self.players.items()}
        before: str | None = None
        last_picture: str | None = None
        for number, step in enumerate(self.steps):
            pinged = [ids.get(user) for m in step.posts for user in m.pings]
            where = f"step {number} ({step.who}: {step.did})"
            assert by_name.get(step.who) not in pinged or by_name.get(step.who) is None, \
                f"{where}: the actor was pinged"
            if step.to_act is not None and step.to_act != before and \
                    by_name.get(step.who) != step.to_act:
                assert step.to_act in pinged, f"{where}: {step.to_act} not pinged"
                assert any(step.to_act in m.content for m in step.posts), where
            assert set(pinged) <= {step.to_act}, f"{where}: pinged {pinged}"
            for message in step.posts:
                for picture in message.attachments:
                    digest = hashlib.sha256(picture.data).hexdigest()
                    assert digest != last_picture, f"{where}: the same map again"
                    last_picture = digest
            for dms in step.dms.values():
                for dm in dms:
                    assert "```" not in dm.content, f"{where}: board text in a DM"
            before = step.to_act

    def counts(self) -> tuple[int, int, int, int]:
        """(actions, thread posts, pings, DMs)."""
        return (len(self.steps), sum(len(s.posts) for s in self.steps),
                sum(len(m.pings) for s in self.steps for m in s.posts),
                sum(len(d) for s in self.steps for d in s.dms.values()))

    def markdown(self, title: str) -> str:
        actions, posts, pings, dms = self.counts()
        out = [f"## {title}", "",
               f"{actions} actions: {posts} thread posts, {pings} pings, {dms} DMs.", ""]
        names = {str(uid): user.name for uid, user in self.h.fake.users.items()}
        for number, step in enumerate(self.steps, 1):
            out.append(f"**{number}. {step.who}** — `{step.did}`")
            if step.answer:
                out.append(f"> *(only {step.who} sees)* " + _quoted(step.answer, names))
            for message in step.posts:
                pings = ", ".join(names.get(str(u), str(u)) for u in message.pings)
                extra = (" [map]" if message.attachments else "") + (
                    f" [pings {pings}]" if pings else "")
                out.append(f"> *(thread)*{extra} " + _quoted(message.content, names))
            for side, dms in step.dms.items():
                for dm in dms:
                    out.append(f"> *(DM to {side})* " + _quoted(dm.content, names))
            out.append("")
        return "\n".join(out)


def _quoted(text: str, names: dict[str, str] | None = None) -> str:
    for uid, name in (names or {}).items():
        text = text.replace(f"<@{uid}>", f"@{name}")
    return text.replace("\n", "  \n> ")
