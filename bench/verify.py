"""``umpire bench verify``: checking and importing a long game's record.

It plays the same real Turning Point: Stalingrad game as ``umpire bench store`` (seeded
random legal orders through the service, the GM rolling back 40 actions whenever a game
ends) to ``--actions`` (default 5,000) stored actions, writes its record with ``umpire
export``'s writer, then in fresh processes, as ``umpire verify FILE --seed SEED`` and
``umpire import FILE --seed SEED`` run:

* verify: peak resident memory (target <= 150 MB) and CPU per action (target <= 2 ms):
  one replay of every action, every state hash, every event and every die checked;
* import: the same checks in the same single pass, each action written as it is read.

Run: ``uv run umpire bench verify`` (``--actions N``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:  # as a script, bench/ must not hide the packages
    sys.path.insert(0, str(ROOT))

from bench.common import Figures, Out  # noqa: E402

TARGET_RSS_MB = 150.0
TARGET_MS_PER_ACTION = 2.0

#: A child that runs one record command and prints what it cost.
CHILD = """
import json, resource, sys, time
from pathlib import Path
from bot.runtime import tune_gc
def peak_rss_mb():  # this process's own high-water mark (getrusage's counts its parent's)
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
from bot.records import import_file, verify_file
from bot.store import Store
what, record, seed = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
tune_gc()
before = peak_rss_mb()
start = time.process_time()
if what == "verify":
    result = verify_file(record, seed)
    ok, problems, actions = result.ok, result.problems[:3], result.actions
else:
    import_file(Store(Path(sys.argv[4])), record, seed)
    ok, problems, actions = True, [], None
cpu = time.process_time() - start
peak = peak_rss_mb()
print(json.dumps({"ok": ok, "problems": problems, "actions": actions, "cpu": cpu,
                  "peak_mb": peak, "start_mb": before}))
"""


def record_of(folder: Path, actions: int, out: Out) -> tuple[Path, str, int]:
    """(the record file, the dice seed, its actions) of the bench game."""
    from bench.store import play
    from bot.records import export_lines, write_record
    from bot.store import Store

    out(f"playing a Turning Point: Stalingrad game to {actions} stored actions …")
    game_id, _copies, _submit, rollbacks = play(folder / "verify.db", actions, [], folder)
    store = Store(folder / "verify.db")
    lines = export_lines(store, game_id)
    row = store.game(game_id)
    assert row is not None
    seed = bytes(row["server_seed"]).hex()
    store.close()
    path = folder / "record.jsonl"
    write_record(lines, path)
    out(f"  record: {len(lines) - 1} actions ({rollbacks} GM rollbacks), "
        f"{path.stat().st_size / 2**20:.1f} MB")
    return path, seed, len(lines) - 1


def child(what: str, record: Path, seed: str, db: Path | None = None) -> dict[str, object]:
    args = [sys.executable, "-c", CHILD, what, str(record), seed]
    if db is not None:
        args.append(str(db))
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    data: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    if not data["ok"]:
        raise RuntimeError(f"the bench record does not {what}: {data['problems']}")
    return data


def run(actions: int = 5000, out: Out = print) -> dict[str, float]:
    figures = Figures()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        record, seed, count = record_of(folder, actions, out)
        runs = [child("verify", record, seed) for _ in range(2)]
        verified = min(runs, key=lambda r: float(str(r["cpu"])))
        imported = child("import", record, seed, folder / "imported.db")
    for label, data in (("verify", verified), ("import", imported)):
        cpu, peak = float(str(data["cpu"])), float(str(data["peak_mb"]))
        out(f"  {label:<7} {cpu:7.2f} s CPU = {1000 * cpu / count:6.3f} ms per action; peak "
            f"RSS {peak:6.1f} MB (after start-up {float(str(data['start_mb'])):.1f} MB)")
    figures.add(f"verify peak RSS at {count} actions", float(str(verified["peak_mb"])),
                TARGET_RSS_MB, " MB")
    figures.add("verify CPU per action", 1000 * float(str(verified["cpu"])) / count,
                TARGET_MS_PER_ACTION, " ms")
    figures.add(f"import peak RSS at {count} actions", float(str(imported["peak_mb"])),
                TARGET_RSS_MB, " MB")
    figures.add("import CPU per action", 1000 * float(str(imported["cpu"])) / count, None,
                " ms")
    figures.report(out)
    return figures.as_dict()


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
