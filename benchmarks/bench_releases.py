"""The gate's time per supported sglang release, and for all five, beside the installed-release run.

    .venv/bin/python benchmarks/bench_releases.py [--repeat N]

For each of 0.5.19 to 0.5.23 (fetched into the gate's cache first; the
download is timed once, separately, only when a release is not cached yet):

* contract: reading the release's contract from its source (in process);
* gate cold: ``spec-protocols check sglang.srt.speculative --sglang ROOT``
  (mypy and pyright) with an empty cache directory;
* gate warm: the same again, nothing changed.

The anchor, measured in the same run: the gate on the installed sglang
(``--checker mypy --checker pyright``, no ``--sglang``), cold and warm: what
one release cost before the contract per release. "All five" is the five
cold (and warm) runs one after the other, against five anchor runs.

Prints a table (figure, ours, anchor, ratio) and writes
benchmarks/results/bench_releases.json. Timings are noisy on shared machines:
compare ratios from the same run only. Nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spec_protocols._releases import SUPPORTED_RELEASES  # noqa: E402
from spec_protocols.gate._contract import extract_contract, fetch_release  # noqa: E402


def gate(cache: Path, *extra: str) -> float:
    """One gate run (mypy and pyright) on sglang.srt.speculative; its wall time. A run that is not exit 0 stops the benchmark."""
    env = {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(cache)}
    argv = [sys.executable, "-m", "spec_protocols.gate._cli", "check", "sglang.srt.speculative",
            "--checker", "mypy", "--checker", "pyright", "--format", "json", *extra]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"the gate exited {proc.returncode} ({' '.join(extra) or 'installed sglang'}): {proc.stderr.strip()[-300:]}")
    return seconds


def cold_and_warm(*extra: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="bench-releases-") as cache:
        cold = gate(Path(cache), *extra)
        warm = gate(Path(cache), *extra)
    return cold, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs per figure; the minimum is kept (default 1)")
    args = parser.parse_args()

    fetches: dict[str, float] = {}
    roots: dict[str, Path] = {}
    for release in SUPPORTED_RELEASES:
        start = time.perf_counter()
        roots[release] = fetch_release(release).root  # the gate's own cache: a no-op once fetched
        fetches[release] = time.perf_counter() - start

    rows: list[dict[str, Any]] = []

    def best(measure: Any) -> tuple[float, float]:
        runs = [measure() for _ in range(args.repeat)]
        return min(r[0] for r in runs), min(r[1] for r in runs)

    anchor_cold, anchor_warm = best(lambda: cold_and_warm())
    totals = {"cold": 0.0, "warm": 0.0}
    for release in SUPPORTED_RELEASES:
        start = time.perf_counter()
        extract_contract(fetch_release(release))
        contract = time.perf_counter() - start
        cold, warm = best(lambda: cold_and_warm("--sglang", str(roots[release])))
        totals["cold"] += cold
        totals["warm"] += warm
        rows += [
            {"figure": f"{release}: contract", "ours": contract, "anchor": None},
            {"figure": f"{release}: gate cold", "ours": cold, "anchor": anchor_cold},
            {"figure": f"{release}: gate warm", "ours": warm, "anchor": anchor_warm},
        ]
    rows += [
        {"figure": "all five: gate cold", "ours": totals["cold"], "anchor": 5 * anchor_cold},
        {"figure": "all five: gate warm", "ours": totals["warm"], "anchor": 5 * anchor_warm},
    ]

    print("anchor: the gate on the installed sglang (mypy + pyright), same run\n")
    print(f"{'figure':28} {'ours':>9} {'anchor':>9} {'ratio':>7}")
    for row in rows:
        anchor = row["anchor"]
        ratio = f"{row['ours'] / anchor:7.2f}" if anchor else "      -"
        anchor_text = f"{anchor:8.2f}s" if anchor else "        -"
        print(f"{row['figure']:28} {row['ours']:8.2f}s {anchor_text} {ratio}")
    cached = [r for r, s in fetches.items() if s < 1.0]
    print(f"\nfetch (pip download + unpack; cached releases take no time): "
          + ", ".join(f"{r} {s:.1f}s" for r, s in fetches.items())
          + (f" ({', '.join(cached)} already cached)" if cached else ""))
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    record = {"python": sys.version.split()[0], "rows": rows, "fetch_seconds": fetches}
    (out / "bench_releases.json").write_text(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
