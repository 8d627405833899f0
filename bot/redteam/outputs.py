"""Every output another audience can read, as a list of producers the leak scan runs.

A producer is shown a :class:`Moment` of a game played through the service — the game,
the actors who read as each audience, what the last actions told everyone — and returns
:class:`Output` texts, each with the audience that reads it. The scan
(:mod:`bot.redteam.leaks`) looks in each for what that audience may not know. A frontend
that sends something new (the email gateway's outgoing mails) adds its producer with
:func:`output_producer`; the scan then covers it with no other change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from adjudicator.kernel.events import PUBLIC
from bot.service import Actor, GameService, SubmitResult


@dataclass(frozen=True)
class Output:
    producer: str
    audience: str  # who reads it: "public", a side, or "gm"
    text: str
    #: Set when the producer judged the output itself (a picture's secret colours).
    leak: bool | None = None


@dataclass
class Moment:
    """A game between two actions, as the producers are shown it."""

    service: GameService
    game_id: str
    rules: Any
    #: audience -> an actor who reads as it: a stranger (public), each side's player, the GM
    actors: dict[str, Actor]
    step: int
    #: the results of the actions since the previous moment (their per-audience messages)
    results: list[SubmitResult] = field(default_factory=list)
    #: anything else a producer keeps between moments
    notes: dict[str, Any] = field(default_factory=dict)
    #: the audiences to produce for, if not every one (the differential's: the secret's
    #: owner reads its own secrets, so only the others' outputs are compared)
    only: list[str] | None = None

    @property
    def readers(self) -> list[str]:
        """Audiences whose outputs are scanned: the public and each side (the GM reads all)."""
        return [a for a in (PUBLIC, *self.rules.sides) if self.only is None or a in self.only]

    @property
    def sides(self) -> list[str]:
        """The sides among :attr:`readers`."""
        return [side for side in self.rules.sides if side in self.readers]

    def state(self) -> Any:
        return self.service.load_state(self.game_id)


Producer = Callable[[Moment], Iterable[Output]]


@dataclass(frozen=True)
class Registered:
    name: str
    produce: Producer
    every: int  # run at every n-th moment (costly producers run less often)


#: The producers, by name, in the order they run.
PRODUCERS: dict[str, Registered] = {}
#: Ways a player's order reaches a game other than the service's own call (the mail
#: gateway's: :func:`bot.redteam.mail.send_order`, registered when that module is imported
#: with the package); each returns whether it sent the order.
ORDER_SENDERS: list[Callable[[Moment, str, str], bool]] = []


def output_producer(name: str, *, every: int = 1) -> Callable[[Producer], Producer]:
    """Register a producer of outputs (a decorator)."""

    def register(produce: Producer) -> Producer:
        PRODUCERS[name] = Registered(name, produce, every)
        return produce

    return register


def _dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)


@output_producer("views")
def views(m: Moment) -> Iterable[Output]:
    for audience in m.readers:
        view = m.service.view(m.game_id, m.actors[audience], audience)
        yield Output("views", audience, view.model_dump_json())
        yield Output("views", audience, m.rules.board_text(view))


@output_producer("notices")
def notices(m: Moment) -> Iterable[Output]:
    """What each audience was told of the last actions (the messages frontends post)."""
    for result in m.results:
        for audience in m.readers:
            message = result.messages.get(audience)
            if message is not None:
                yield Output("notices", audience, message.text)
    for audience, text in m.notes.pop("deadline_notices", []):
        yield Output("notices", audience, text)


@output_producer("refusals")
def refusals(m: Moment) -> Iterable[Output]:
    """The refusals each side received (its own mistakes; probes of the other's secrets)."""
    for side, probe, error, legal in m.notes.pop("refusals", []):
        text = " ".join([str(error), *legal])
        for word in probe.split():  # the player's own words quoted back are no leak
            text = text.replace(word, " ")
        yield Output("refusals", side, text)


@output_producer("legal lists")
def legal_lists(m: Moment) -> Iterable[Output]:
    for side in m.sides:
        legal = m.service.legal_orders(m.game_id, m.actors[side], side)
        yield Output("legal lists", side, "\n".join(legal))
        m.notes.setdefault("legal", {})[side] = legal


@output_producer("autocomplete")
def autocomplete(m: Moment) -> Iterable[Output]:
    """Discord's suggestions as each side types the first letters of an order."""
    from bot.discord.autocomplete import suggest_orders

    for side in m.sides:
        legal = m.notes.get("legal", {}).get(side)
        if legal is None:
            legal = m.service.legal_orders(m.game_id, m.actors[side], side)
        for typed in ("", "m", "f", "h", "p", "a", "s"):
            yield Output("autocomplete", side, "\n".join(suggest_orders(legal, typed)))


@output_producer("log")
def log(m: Moment) -> Iterable[Output]:
    for audience in m.readers:
        entries = m.service.log(m.game_id, m.actors[audience], 30, include_reverted=True)
        yield Output("log", audience, _dump([e.model_dump() for e in entries]))
        yield Output("log", audience, "\n".join(e.summary() for e in entries))


@output_producer("export", every=10)
def export(m: Moment) -> Iterable[Output]:
    for audience in m.readers:
        record = m.service.export(m.game_id, m.actors[audience])
        yield Output("export", audience, record.jsonl().decode())


@output_producer("info", every=5)
def info(m: Moment) -> Iterable[Output]:
    for audience in m.readers:
        yield Output("info", audience, m.service.info(m.game_id, m.actors[audience])
                     .model_dump_json())


@output_producer("briefing", every=10)
def briefing(m: Moment) -> Iterable[Output]:
    """The scenario's briefing (the console's start and `brief`): public by design, so it
    must never carry a secret of the game it is read in."""
    for audience in m.readers:
        yield Output("briefing", audience,
                     m.service.briefing(m.game_id, m.actors[audience]).text())


@output_producer("GIF captions", every=15)
def captions(m: Moment) -> Iterable[Output]:
    from bot.replays import replay_frames
    from render.replay import frames_by_step

    for audience in m.readers:
        frames = frames_by_step(replay_frames(m.rules, m.service.store, m.game_id, audience))
        yield Output("GIF captions", audience, "\n".join(f.caption for f in frames))


@output_producer("secret-colour pixels", every=12)
def pixels(m: Moment) -> Iterable[Output]:
    """A picture drawn for an audience uses the secret colours only for that audience's own
    secrets: the public picture never, a side's only while it has secrets of its own."""
    import render
    from render.common import FIRST_SECRET, uses_any

    try:
        pack = m.notes.setdefault("pack", render.load_pack(m.rules.name, m.rules.pack))
    except render.NoPicture:
        return
    own = m.notes.get("own_secrets", {})
    for audience in m.readers:
        if own.get(audience):
            continue
        view = m.service.view(m.game_id, m.actors[audience], audience)
        for crop in (False, True):
            image = render.draw(view, pack, crop=crop)
            yield Output("secret-colour pixels", audience, f"picture crop={crop}",
                         leak=uses_any(image, range(FIRST_SECRET, 256)))
