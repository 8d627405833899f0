"""``umpire bench startup``: what a new process pays before it does anything useful.

Each figure is measured in fresh processes (this machine's Python, the installed ``umpire``
command), as their CPU time (user + system, from ``getrusage`` of the children), the least
and the median of several runs:

* ``umpire --help`` — target <= 0.25 s: only typer is imported; each command imports
  what it uses when it runs;
* ``umpire play stalingrad`` to its first prompt (a new stored game, the board printed),
  then ``quit`` — the rules, the store and the console, and nothing else (no Discord, no
  pictures, no mail);
* the first picture in a new process, with the static layers built at start-up
  (``render.prepare``, as the Discord bot does before going online) and without: the
  prepared first picture should cost about what a later one does (target <= 2x).

Run: ``uv run umpire bench startup``.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

from bench.common import Figures, Out  # noqa: E402

HELP_TARGET_S = 0.25
FIRST_PICTURE_TARGET = 2.0

#: A child that prints the CPU seconds of its first picture and of the next one.
PICTURE = """
import resource, sys, time
prepare = sys.argv[1] == "prepare"
import render
from adjudicator.registry import load_game
rules = load_game("stalingrad")
view = rules.view(rules.setup("historical"), "public")
pack = render.load_pack("stalingrad")
if prepare:  # as the Discord bot does before going online
    from bot.discord.app import prepare_pictures
    prepare_pictures(["stalingrad"])
def cpu():
    return time.process_time()
start = cpu(); render.render(view, pack, crop=True); first = cpu() - start
start = cpu(); render.render(view, pack, crop=True); second = cpu() - start
print(first, second)
"""

#: A child that lists the top-level packages a command imported.
IMPORTS = """
import sys
from typer.testing import CliRunner
from bot.cli import app
before = set(sys.modules)
CliRunner().invoke(app, sys.argv[1:], input="quit\\n")
print(" ".join(sorted({m.split(".")[0] for m in set(sys.modules) - before})))
"""


def child_cpu(args: list[str], stdin: str = "", env: dict[str, str] | None = None
              ) -> tuple[float, str]:
    """CPU seconds (user + system) of one child process, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, check=True,
                          env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


def umpire_command() -> list[str]:
    script = shutil.which("umpire", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "bot.cli"]


def run(actions: int = 5, out: Out = print) -> dict[str, float]:
    """``actions``: how many times each process is started (at least 3)."""
    repeat = max(3, actions)
    figures = Figures()
    umpire = umpire_command()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "UMPIRE_DB": str(Path(folder) / "startup.db"), "COLUMNS": "100"}
        child_cpu([*umpire, "--help"], env=env)  # bytecode, file cache: as after install
        helps = [child_cpu([*umpire, "--help"], env=env)[0] for _ in range(repeat)]
        plays = [child_cpu([*umpire, "play", "stalingrad"], "quit\n", env)[0]
                 for _ in range(repeat)]
        _cpu, loaded = child_cpu([sys.executable, "-c", IMPORTS, "play", "stalingrad"],
                                 env=env)
        pictures: dict[str, list[tuple[float, float]]] = {}
        for mode in ("cold", "prepare"):
            pictures[mode] = []
            for _ in range(repeat):
                _cpu, text = child_cpu([sys.executable, "-c", PICTURE, mode], env=env)
                first, second = (float(x) for x in text.split())
                pictures[mode].append((first, second))
    out(f"umpire --help            least {min(helps):6.3f} s   median "
        f"{statistics.median(helps):6.3f} s CPU   ({repeat} runs)")
    out(f"umpire play stalingrad   least {min(plays):6.3f} s   median "
        f"{statistics.median(plays):6.3f} s CPU   (to the first prompt, then quit)")
    out(f"  packages 'play' imported: {loaded.strip()}")
    for mode, label in (("cold", "without start-up layers"), ("prepare", "layers built at "
                                                                          "start-up")):
        first = statistics.median(f for f, _ in pictures[mode])
        later = statistics.median(s for _, s in pictures[mode])
        out(f"first TP:S picture, {label:<24} {1000 * first:8.1f} ms CPU; the next one "
            f"{1000 * later:6.1f} ms")
    prepared_first = statistics.median(f for f, _ in pictures["prepare"])
    prepared_next = statistics.median(s for _, s in pictures["prepare"])
    heavy = sorted({"discord", "PIL", "imap_tools", "aiosmtpd"} & set(loaded.split()))
    figures.add("umpire --help CPU", min(helps), HELP_TARGET_S, " s")
    figures.add("umpire play start-up CPU", min(plays), None, " s")
    figures.add("packages 'play' imports but does not use", float(len(heavy)), 0)
    figures.add("first picture (prepared) / next picture", prepared_first / prepared_next,
                FIRST_PICTURE_TARGET, "x")
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    run()
