"""The verdict cache: warm gate runs with all three checkers, beside the naive harness, in one run.

    .venv/bin/python benchmarks/bench_cache.py [--skip-naive]

Prints a table (figure, ours, anchor, ratio) and writes
benchmarks/results/bench_cache.json. Every gate run is
``spec-protocols check TARGET --format json`` with the runtime checker, mypy
and pyright, in a cache folder of its own (SPEC_PROTOCOLS_CACHE_DIR), as a
subprocess (interpreter start-up included). Figures:

* sglang.srt.speculative (14 checks): cold (empty cache), warm with
  ``--no-cache`` (what every warm run cost before the verdict cache: mypy's
  own cache warm, the runtime checker importing sglang again), and warm with
  the cache, nothing changed;
* a copy of examples/sglang_plugin_example in a temporary folder: warm with
  the cache, nothing changed; and after one line of one of its files is
  edited (every checker runs again: the edit is in what each one reads);
* the anchor, measured in the same run: the naive dual-checker harness of
  bench_gate.py (one file assigning each of the 8 workers to SpecWorker,
  plain pyright then mypy with follow_untyped_imports, cold).

Python may keep bytecode (PYTHONDONTWRITEBYTECODE is dropped, and
PYTHONPYCACHEPREFIX points into the temporary folder, so nothing is written
into the checkout), as it does for an installed package: a warm run is then
warm all the way down. One more figure repeats the cached run with no
bytecode at all (PYTHONDONTWRITEBYTECODE=1 and an empty prefix: every module
of the gate compiled on every run), which is what a checkout run in an
environment with PYTHONDONTWRITEBYTECODE set costs. The load average
(os.getloadavg) before and after is printed and recorded.

Each cached figure is checked to be one: the report's timings must show
every checker as "NAME (cached)" (and none after the edit), or the script
says so. Timings are noisy on shared machines: compare ratios from the same
run only. Nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_gate import naive_run  # benchmarks/ is sys.path[0] when run as a script

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
CHECKERS = ("runtime", "mypy", "pyright")
PLUGIN = ROOT / "examples" / "sglang_plugin_example"


def gate(target: str, cache: Path, *extra: str, bytecode: bool = True) -> dict[str, Any]:
    """One gate run: wall time, exit status, and which checkers were reused."""
    env = {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(cache)}
    env.pop("SPEC_PROTOCOLS_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache.parent / "pycache")
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(cache.parent / "no-pycache")  # empty: nothing to read
    argv = [str(VENV_BIN / "spec-protocols"), "check", target, "--format", "json", *extra]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        sys.exit(f"the gate failed on {target} (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
    timings: dict[str, float] = report.get("timings", {})
    reused = sorted(k.removesuffix(" (cached)") for k in timings if k.endswith(" (cached)"))
    return {"s": wall, "exit": proc.returncode, "summary": report["summary"], "reused": reused, "timings": timings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-naive", action="store_true", help="skip the (slow) naive harness anchor")
    args = parser.parse_args()
    record: dict[str, Any] = {"python": sys.version.split()[0], "load_before": os.getloadavg()}
    problems: list[str] = []

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        cache = base / "cache"
        sglang = "sglang.srt.speculative"
        record["sglang_cold"] = gate(sglang, cache)
        record["sglang_warm_no_cache"] = gate(sglang, cache, "--no-cache")
        record["sglang_warm_cached"] = gate(sglang, cache)
        record["sglang_warm_cached_again"] = gate(sglang, cache)
        record["sglang_warm_cached_no_bytecode"] = gate(sglang, cache, bytecode=False)

        plugin_root = base / "plugin"
        shutil.copytree(PLUGIN, plugin_root, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        plugin = str(plugin_root / "spec_example_plugin")
        record["plugin_first"] = gate(plugin, cache)
        record["plugin_warm_cached"] = gate(plugin, cache)
        edited = plugin_root / "spec_example_plugin" / "worker.py"
        edited.write_text(edited.read_text(encoding="utf-8") + "\n# an edit: one more line\n", encoding="utf-8")
        record["plugin_after_edit"] = gate(plugin, cache)

        cached_runs = ("sglang_warm_cached", "sglang_warm_cached_again", "sglang_warm_cached_no_bytecode", "plugin_warm_cached")
        for name in cached_runs:
            if record[name]["reused"] != sorted(CHECKERS):
                problems.append(f"{name}: reused {record[name]['reused']}, expected all three checkers")
        if record["plugin_after_edit"]["reused"]:
            problems.append(f"plugin_after_edit: reused {record['plugin_after_edit']['reused']}, expected none")

        naive = float("nan")
        if not args.skip_naive:
            work = base / "naive"
            work.mkdir()
            naive, _ = naive_run(work)
            record["naive_s"] = naive
    record["load_after"] = os.getloadavg()

    rows = [
        ("sglang: cold, empty cache", record["sglang_cold"]["s"]),
        ("sglang: warm, --no-cache (before)", record["sglang_warm_no_cache"]["s"]),
        ("sglang: warm, cached, unchanged", record["sglang_warm_cached"]["s"]),
        ("sglang: the same, again", record["sglang_warm_cached_again"]["s"]),
        ("sglang: the same, no bytecode", record["sglang_warm_cached_no_bytecode"]["s"]),
        ("plugin: warm, cached, unchanged", record["plugin_warm_cached"]["s"]),
        ("plugin: warm, one file edited", record["plugin_after_edit"]["s"]),
    ]
    print(f"{'figure (3 checkers, wall s)':40} {'ours':>8} {'naive':>8}  ratio")
    for name, ours in rows:
        ratio = f"{ours / naive:.3f}x" if naive == naive else "naive skipped"
        print(f"{name:40} {ours:8.2f} {naive:8.2f}  {ratio}")
    if naive == naive:
        print(f"target: warm, cached, unchanged <= 0.05x of the naive harness: "
              f"{'met' if record['sglang_warm_cached']['s'] <= 0.05 * naive else 'not met'}")
    cached_timings = record["sglang_warm_cached"]["timings"]
    print("sglang warm cached, timings:", json.dumps(cached_timings, sort_keys=True))
    print("load average (1, 5, 15 min) before:", record["load_before"], "after:", record["load_after"])
    for line in problems:
        print("WARNING:", line)
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_cache.json").write_text(json.dumps(record, indent=2))
    print(f"wrote {out / 'bench_cache.json'}")


if __name__ == "__main__":
    main()
