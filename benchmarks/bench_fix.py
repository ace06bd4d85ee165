"""``spec-protocols fix``'s cost: a one-worker plugin, cold, beside a cold one-shot ``check`` of it.

    .venv/bin/python benchmarks/bench_fix.py [--rounds N]

The plugin is tests/checkers/test_fix_command.py's (one worker with four
mechanical mistakes, registered with a conforming ``spec_class``). Side by
side in one run, A B A B, each on a fresh copy of the plugin and an empty
cache folder, each figure with the 1-minute load average taken just before it:

* the anchor: ``spec-protocols check fxp`` (mypy and pyright);
* ``spec-protocols fix fxp --write`` with the same checkers: the gate, the
  edits (LibCST), the files written, the gate again on the result.

The ratio fix/check is the figure: a fix costs about two gate runs, the
edits themselves next to nothing. Writes benchmarks/results/bench_fix.json.
Timings are noisy on shared machines: read the ratios of one run. Nothing
here is asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.checkers.test_fix_command import INIT, WORKERS  # noqa: E402 - the checkout's own test plugin

CHECKERS = ("--checker", "mypy", "--checker", "pyright")
GATE = Path(sys.executable).parent / "spec-protocols"


def _run(command: str, *extra: str) -> tuple[float, int, float]:
    """One cold run on a fresh plugin copy: wall seconds, exit status, the load average before it."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "fxp").mkdir()
        (folder / "fxp" / "__init__.py").write_text(INIT, encoding="utf-8")
        (folder / "fxp" / "workers.py").write_text(WORKERS, encoding="utf-8")
        env = {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(folder / "cache"), "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"}
        env.pop("SPEC_PROTOCOLS_NO_CACHE", None)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.run([str(GATE), command, "fxp", *CHECKERS, *extra], cwd=folder, env=env, capture_output=True, text=True, check=False)
        return time.perf_counter() - start, proc.returncode, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    check: list[float] = []
    fix: list[float] = []
    rows: list[dict[str, object]] = []
    for _ in range(args.rounds):
        for name, command, extra, into in (("check", "check", (), check), ("fix --write", "fix", ("--write",), fix)):
            wall, code, load = _run(command, *extra)
            into.append(wall)
            rows.append({"run": name, "seconds": round(wall, 2), "exit": code, "load_1min": round(load, 2)})
            print(f"{name:12} {wall:6.1f} s  exit {code}  load {load:.1f}", flush=True)
    result = {
        "check_median_s": round(statistics.median(check), 2),
        "fix_median_s": round(statistics.median(fix), 2),
        "ratio_fix_to_check": round(statistics.median(fix) / statistics.median(check), 2),
        "rows": rows,
    }
    out = ROOT / "benchmarks" / "results" / "bench_fix.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"check {result['check_median_s']} s, fix --write {result['fix_median_s']} s: ratio {result['ratio_fix_to_check']} ({out})")


if __name__ == "__main__":
    main()
