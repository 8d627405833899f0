"""The fake Discord in a process of its own, driven over a pipe (``umpire bench discord``).

Discord's servers do not run in the bot's process, nor take its interpreter's lock: a
benchmark of the bot under a burst runs :class:`FakeDiscord` — the same server, refusing
what it refuses in the tests — in a child process (``python -m tests.fakediscord.apart``),
and asks it for what a test reads in-process (users, threads, interactions, messages)
through :class:`FakeProcess`: one JSON line per request on the child's stdin, one per
answer on its stdout, matched by number, so many requests may be in flight at once.

Times cross as ``time.monotonic()`` readings, one clock for every process of the machine
(the event loop's ``loop.time()`` is the same clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests.fakediscord.server import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
JSON = dict[str, Any]


class Served:
    """The child's side: a started :class:`FakeDiscord` and the requests it answers."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.stopped = asyncio.Event()

    async def info(self) -> JSON:
        fake = self.fake
        return {"rest_base": fake.rest_base, "gateway_url": fake.gateway_url,
                "guild_id": fake.guild_id, "general": fake.general.id}

    async def add_user(self, name: str, admin: bool = False) -> int:
        return self.fake.add_user(name, admin=admin).id

    async def new_ids(self, count: int) -> list[int]:
        return [self.fake.new_id() for _ in range(count)]

    async def threads(self) -> list[int]:
        return [channel.id for channel in self.fake.threads()]

    async def command_data(self, path: str, options: JSON, channel: int, user: int,
                           focused: str | None = None) -> JSON:
        fake = self.fake
        return fake.command_data(path, options, fake.channels[channel], fake.users[user],
                                 focused=focused)

    async def messages_in(self, channel: int) -> int:
        return len(self.fake.channel_messages(channel))

    async def interact(self, type_: int, user: int, channel: int, data: JSON, iid: int,
                       timeout: float) -> JSON:
        """Send one interaction and wait for its first response: when it was sent and when
        the first response came (``time.monotonic()``)."""
        fake = self.fake
        sent = time.monotonic()
        record = await fake.interact(type_, fake.users[user], fake.channels[channel], data,
                                     iid=iid)
        await asyncio.wait_for(record.responded.wait(), timeout)
        return {"sent": sent, "responded": time.monotonic()}

    async def pictured(self, iid: int, channel: int, before: int) -> bool:
        """Whether interaction ``iid``'s answers, or what was posted in ``channel`` after
        its first ``before`` messages, carry a picture."""
        fake = self.fake
        posted = [*fake.interactions[iid].messages(), *fake.channel_messages(channel)[before:]]
        return any(message.attachments for message in posted)

    async def problems(self) -> JSON:
        """What a test's ``Harness.check`` reads: routes the fake does not know, requests
        Discord would refuse."""
        return {"unhandled": list(self.fake.unhandled), "invalid": list(self.fake.invalid)}

    async def stop(self) -> None:
        await self.fake.stop()
        self.stopped.set()


async def serve() -> None:
    """The child's main: start the fake, answer requests from stdin until ``stop``."""
    loop = asyncio.get_running_loop()
    served = Served(FakeDiscord())
    await served.fake.start()
    reader = asyncio.StreamReader(limit=16 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer
    tasks: set[asyncio.Task[None]] = set()

    async def answer(request: JSON) -> None:
        try:
            method: Callable[..., Awaitable[Any]] = getattr(served, request["op"])
            reply: JSON = {"n": request["n"], "result": await method(**request["args"])}
        except Exception as error:  # the parent raises it for the request that failed
            reply = {"n": request["n"], "error": f"{type(error).__name__}: {error}"}
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()

    while line := await reader.readline():  # until the parent closes the pipe
        task = loop.create_task(answer(json.loads(line)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    for task in list(tasks):
        with contextlib.suppress(Exception):
            await task
    if not served.stopped.is_set():  # the parent went without asking
        await served.fake.stop()


class FakeProcess:
    """The parent's side: a fake Discord in a child process. ``rest_base``,
    ``gateway_url``, ``unhandled`` and ``invalid`` are what ``run_client`` and
    ``Harness.check`` read (the last two as of the latest :meth:`refresh`)."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.reading: asyncio.Task[None] | None = None
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.numbers = 0
        self.rest_base = self.gateway_url = ""
        self.guild_id = self.general = 0
        self.unhandled: list[str] = []
        self.invalid: list[str] = []

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.fakediscord.apart", cwd=str(ROOT),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=16 * 1024 * 1024)
        self.reading = asyncio.get_running_loop().create_task(self._read())
        info = await self.call("info")
        self.rest_base, self.gateway_url = info["rest_base"], info["gateway_url"]
        self.guild_id, self.general = int(info["guild_id"]), int(info["general"])

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        while line := await self.process.stdout.readline():
            reply = json.loads(line)
            future = self.pending.pop(int(reply["n"]), None)
            if future is None or future.done():
                continue
            if "error" in reply:
                future.set_exception(RuntimeError(f"the fake Discord: {reply['error']}"))
            else:
                future.set_result(reply["result"])
        for future in self.pending.values():  # the child ended: nobody answers these
            if not future.done():
                future.set_exception(RuntimeError("the fake Discord's process ended"))

    async def call(self, op: str, **args: Any) -> Any:
        assert self.process is not None and self.process.stdin is not None
        self.numbers += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[self.numbers] = future
        self.process.stdin.write(json.dumps({"n": self.numbers, "op": op,
                                             "args": args}).encode() + b"\n")
        return await future

    async def refresh(self) -> None:
        problems = await self.call("problems")
        self.unhandled, self.invalid = problems["unhandled"], problems["invalid"]

    async def stop(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(RuntimeError, ConnectionError):
            await self.call("stop")
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        if self.reading is not None:
            await self.reading


if __name__ == "__main__":
    asyncio.run(serve())
