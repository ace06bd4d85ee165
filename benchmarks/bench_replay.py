"""The replay checker's cost: a one-worker plugin, cold, one-shot and in ``--watch``, with and without it.

    .venv/bin/python benchmarks/bench_replay.py [--quick]

The plugin is a copy of examples/sglang_plugin_example (one spec worker, its
injected draft worker and its algorithm object, registered as sglang's plugin
loader finds it). Side by side in one run, A B A B, each figure with the
1-minute load average taken just before it:

* cold one-shot (an empty cache folder each run, ``--format json``): the
  default checkers without the replay (``--checker runtime --checker mypy
  --checker pyright``: today's run before the replay) and with it (the
  default, four checkers); the ratio with/without;
* ``check --watch``, the time from a one-line edit of worker.py to the next
  summary line, edits made ``bench_edit_loop.SETTLE_S`` after a report (the
  replay starts a fresh driver each round: an import cannot be undone in a
  process), with and without the replay; the ratio, and each beside the
  cold one-shot run without the replay.

Writes benchmarks/results/bench_replay.json. Timings are noisy on shared
machines: read the ratios of one run. Nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench_cache import PLUGIN, ROOT, gate  # benchmarks/ is sys.path[0] when run as a script
from bench_edit_loop import load, watch_latency

WITHOUT = ("--checker", "runtime", "--checker", "mypy", "--checker", "pyright")
WITH = ("--checker", "runtime", "--checker", "replay", "--checker", "mypy", "--checker", "pyright")
PACKAGE = "spec_example_plugin"


def cold(target: Path, scratch: Path, flags: tuple[str, ...], n: int) -> dict[str, Any]:
    cache = scratch / f"cache-{n}"
    before = load()
    run = gate(str(target), cache, *flags)
    shutil.rmtree(cache, ignore_errors=True)
    return {**run, "load": before}


def measure(scratch: Path, quick: bool) -> dict[str, Any]:
    copy = scratch / "plugin"
    shutil.copytree(PLUGIN, copy)
    target = copy / PACKAGE
    repeats = 1 if quick else 3
    record: dict[str, Any] = {"without": [], "with": []}
    for n in range(repeats):
        record["without"].append(cold(target, scratch, WITHOUT, 2 * n))
        record["with"].append(cold(target, scratch, WITH, 2 * n + 1))
    count = [0]
    edits = 1 if quick else 2
    record["watch_without"] = {**watch_latency(target, scratch / "w1", target / "worker.py", count, 600, edits, WITHOUT), "load": load()}
    record["watch_with"] = {**watch_latency(target, scratch / "w2", target / "worker.py", count, 600, edits, WITH), "load": load()}
    return record


def _median(runs: list[dict[str, Any]]) -> float:
    return statistics.median(float(r["s"]) for r in runs)


def table(record: dict[str, Any]) -> list[str]:
    without, with_replay = _median(record["without"]), _median(record["with"])
    lines = [
        "| figure | without the replay | with the replay | ratio |",
        "|---|---|---|---|",
        f"| cold one-shot, median of {len(record['without'])} | {without:.1f} s | {with_replay:.1f} s | {with_replay / without:.2f}x |",
    ]
    w1, w2 = record["watch_without"], record["watch_with"]
    if "after_edit_s" in w1 and "after_edit_s" in w2:
        a, b = float(w1["after_edit_s"]), float(w2["after_edit_s"])
        lines.append(f"| --watch, an edit to the next report | {a:.2f} s ({a / without:.2f}x cold) | {b:.2f} s ({b / without:.2f}x cold) | {b / a:.2f}x |")
    else:
        lines.append(f"| --watch | {w1.get('error', '')} | {w2.get('error', '')} | - |")
    loads = [r["load"] for r in (*record["without"], *record["with"], w1, w2) if "load" in r]
    lines.append(f"(1-minute load average before each figure: {min(loads):.1f} to {max(loads):.1f})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: one repetition, one watch edit")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as scratch:
        record = measure(Path(scratch), options.quick)
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    (results / "bench_replay.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("\n".join(table(record)))


if __name__ == "__main__":
    main()
