"""Parser fuzz: hostile text through the service into both games (hypothesis).

Every input must get a refusal or be applied — never an exception — within 100 ms of
processor time (the submitting thread's, with the garbage collector's passes run between
inputs: what the input costs Umpire, not how busy the machine is with other work): random
text, unicode digits and letters, control and zero-width characters, right-to-left marks,
huge inputs, mutations of the legal orders of a live position, and lone surrogates
(U+D800-DFFF, which no encoding can write: such text must be refused with a clear message,
never crash the service). The examples follow ``--seed``: the same seed, the same inputs.
"""

from __future__ import annotations

import gc
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.redteam.leaks import Tally
from bot.service import Actor, GameService
from bot.store import Store

SLOW = 0.1  # processor seconds: an input costlier than this counts as a failure
WEIRD = ["١٢٣٤", "０１０１", "¹", "²", "\u200b", "\u200d", "\ufeff", "\u202e", "\x00", "\x1b[2J",
         "\r", "\t", "ß", "İ", "e\u0301", "𝟎𝟏𝟎𝟏", "½", "Ⅳ", "#", ",", "+", "&", "-", ":", "'",
         '"', "\\", "%s", "{}", "${x}", "<b>", "@everyone", "🙂"]


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (U+D800-DFFF)."""
    return any("\ud800" <= char <= "\udfff" for char in text)


def surrogates(st: Any, legal: list[str]) -> Any:
    """Texts with lone surrogates: alone, or put into a legal order."""
    lone = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
    return st.one_of(
        st.text(alphabet=lone, min_size=1, max_size=4),
        st.tuples(st.sampled_from(legal), st.integers(0, 40), lone).map(
            lambda item: item[0][:item[1]] + item[2] + item[0][item[1]:]),
    )


def _live_game(folder: Path, game: str) -> tuple[GameService, str, dict[str, Actor]]:
    service = GameService(Store(folder / f"fuzz-{game}.db", synchronous="OFF"))
    gm = Actor.discord("800")
    info = service.create_game(gm, game)
    rules = service.rules(info.id)
    players = {str(side): Actor.discord(str(801 + n)) for n, side in enumerate(rules.sides)}
    for side, actor in players.items():
        service.seat(info.id, gm, side, actor)
    service.start(info.id, gm)
    return service, info.id, players


def run_fuzz(tally: Tally, *, quick: bool, seed: int, out: Callable[[str], None]) -> None:
    try:
        import hypothesis  # noqa: F401
    except ImportError:  # a production install without the test tools
        out("  parser fuzz skipped: hypothesis is not installed (uv sync installs it)")
        return
    with tempfile.TemporaryDirectory(prefix="umpire-fuzz-") as folder:
        for game in ("tanks", "stalingrad"):
            _fuzz_game(Path(folder), game, 250 if quick else 3000, seed, tally)
            out(f"  fuzzed {game}")


def _fuzz_game(folder: Path, game: str, examples: int, seed: int, tally: Tally) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    service, game_id, players = _live_game(folder, game)
    rules = service.rules(game_id)
    side = rules.acting_side(service.load_state(game_id))
    assert side is not None
    actor = players[side]
    legal = service.legal_orders(game_id, actor, side)
    words = sorted({w for o in legal[:300] for w in o.split()} | set(WEIRD))
    rnd = random.Random(seed)
    gm = Actor.discord("800")
    for warm in ("move x y", "standing", legal[0] if legal else "pass"):  # build the caches
        result = service.submit(game_id, actor, warm)
        if result.ok:
            service.rollback(game_id, gm, service.info(game_id).head_seq - len(result.seqs),
                             "fuzz")

    def mutate(order: str, picks: list[tuple[int, int, str]]) -> str:
        parts = order.split()
        for op, where, word in picks:
            if op == 0 and parts:
                parts[where % len(parts)] = word
            elif op == 1:
                parts.insert(where % (len(parts) + 1), word)
            elif op == 2 and parts:
                del parts[where % len(parts)]
        return " ".join(parts)

    texts = st.one_of(
        st.text(max_size=300),
        st.text(alphabet=st.characters(categories=["Cc", "Cf", "Zs", "Nd", "No", "Mn", "So"]),
                max_size=80),
        st.lists(st.sampled_from(words), max_size=40).map(" ".join),
        st.tuples(st.sampled_from(legal or ["pass"]),
                  st.lists(st.tuples(st.integers(0, 2), st.integers(0, 50),
                                     st.sampled_from(words)), max_size=4))
        .map(lambda item: mutate(*item)),
        st.integers(1, 12).map(lambda n: ("move " + "0101 " * n * 400)[:20_000]),
        st.integers(1, 3).map(lambda n: "standing x y\n" * (60 * n)),
        surrogates(st, legal or ["pass"]),
    )

    @hypothesis_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              derandomize=False, suppress_health_check=list(HealthCheck))
    @given(text=texts)
    def attempt(text: str) -> None:
        who = actor if rnd.random() < 0.8 else players[rnd.choice(rules.sides)]
        crashed = ""
        result = None
        # The cyclic garbage collector's passes (up to 200 ms in a process that has run
        # the leak scans) free every earlier input's garbage: they run between inputs.
        gc.disable()
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            result = service.submit(game_id, who, text)
        except Exception as error:  # the finding: submit must never raise
            crashed = f"{type(error).__name__}: {error}"
        spent, wall = time.thread_time() - cpu, time.perf_counter() - started
        gc.enable()
        tally.count("parser fuzz: exceptions", bool(crashed), f"{text!r}: {crashed}")
        if has_surrogate(text):
            tally.count("parser fuzz: lone surrogates refused", crashed != "" or (
                result is not None and result.status != "refused"),
                f"{text[:80]!r}: {crashed or (result.status if result else '')}")
        tally.count("parser fuzz: inputs over 100 ms", spent > SLOW,
                    f"{spent * 1000:.0f} ms ({wall * 1000:.0f} ms wall): {text[:80]!r}")
        if result is not None and result.ok:  # applied: roll it back, keep the position
            head = service.info(game_id).head_seq
            service.rollback(game_id, gm, head - len(result.seqs), "fuzz")

    attempt()
    service.store.close()
