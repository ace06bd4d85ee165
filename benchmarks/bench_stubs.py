"""What the sglang stubs cost or save the checkers, measured side by side.

One generated file imports all eight speculative-worker modules of sglang
0.5.23 and touches the stubbed members through them. mypy and pyright check
it twice each, with cold caches: once against sglang's source alone, once
with ``stubs/`` in front of it. Everything runs in one process invocation so
the four figures share the machine's state.

    .venv/bin/python benchmarks/bench_stubs.py [--repeat N]

Prints a table and writes JSON to ``benchmarks/results/`` (gitignored).
mypy runs with ``follow_untyped_imports`` (sglang ships no ``py.typed``; without
it mypy sees every sglang name as ``Any`` and the comparison is meaningless)
and ``follow_imports = silent`` (errors inside sglang are not the subject).
The worker modules themselves are not stubbed, so both runs analyse them; the
stubs cut off what they import through the stubbed modules.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sglang_workers import WORKERS  # benchmarks/ is sys.path[0] when run as a script

REPO_ROOT = Path(__file__).resolve().parent.parent
STUBS = REPO_ROOT / "stubs"
RESULTS = REPO_ROOT / "benchmarks" / "results"


# Members of the stubbed classes that the scheduler and BaseSpecWorker use.
TOUCH = """\
    target = worker.target_worker
    target.alloc_memory_pool(None, None, None)
    target.init_attention_backends()
    target.init_cuda_graphs(capture_decode_cuda_graph=False)
    usage: dict[str, float] = target.graph_memory_usage
    seconds: float = target.weight_load_time + len(usage)
    weight_bytes: int = target.preloaded_weights_bytes
    runners = target.weight_update_runners()
    runner = target.model_runner
    prewarm = runner.prewarm_sampling()
    pools = target.get_memory_pool()
    results.append((seconds, weight_bytes, runners, prewarm, pools, worker.draft_worker))
"""


def generate_user_file(folder: Path) -> Path:
    lines = ["from __future__ import annotations", ""]
    for module, cls in WORKERS.items():
        lines.append(f"from sglang.srt.speculative.{module} import {cls}")
    lines += ["", "", "def touch_all("]
    lines += [f"    w{i}: {cls}," for i, cls in enumerate(WORKERS.values())]
    lines += [") -> list[object]:", "    results: list[object] = []"]
    lines += [f"    for worker in ({', '.join(f'w{i}' for i in range(len(WORKERS)))}):"]
    lines += ["    " + line if line else line for line in TOUCH.splitlines()]
    lines += ["    return results", ""]
    path = folder / "bench_user.py"
    path.write_text("\n".join(lines))
    return path


def _timed(cmd: list[str], cwd: Path) -> tuple[float, int, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800)
    return time.perf_counter() - start, proc.returncode, proc.stdout + proc.stderr


def run_mypy(folder: Path, user: Path, with_stubs: bool) -> dict[str, object]:
    config = folder / ("mypy-stubs.ini" if with_stubs else "mypy-source.ini")
    body = "[mypy]\npython_version = 3.11\nfollow_untyped_imports = True\nfollow_imports = silent\n"
    if with_stubs:
        body += f"mypy_path = {STUBS}\n"
    config.write_text(body)
    cache = Path(tempfile.mkdtemp(prefix="mypy-cache-", dir=folder))  # cold: a fresh, empty cache
    seconds, rc, output = _timed(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache), user.name], folder
    )
    errors = len(re.findall(r": error: ", output))
    return {"seconds": seconds, "returncode": rc, "errors": errors, "tail": output[-600:]}


def run_pyright(folder: Path, user: Path, with_stubs: bool) -> dict[str, object]:
    # pyright keeps no cache between runs: every run is cold. Without a stubPath
    # it looks in ./typings, which does not exist here.
    project = folder / ("pyright-stubs" if with_stubs else "pyright-source")
    project.mkdir(exist_ok=True)
    (project / user.name).write_text(user.read_text())
    config: dict[str, object] = {"pythonVersion": "3.11", "include": [user.name]}
    if with_stubs:
        config["stubPath"] = str(STUBS)
    (project / "pyrightconfig.json").write_text(json.dumps(config))
    seconds, rc, output = _timed(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable], project
    )
    try:
        summary = json.loads(output[output.index("{"):])["summary"]
        errors = summary["errorCount"]
    except (ValueError, KeyError):
        errors = -1
    return {"seconds": seconds, "returncode": rc, "errors": errors, "tail": output[-600:]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (median reported)")
    args = parser.parse_args()

    runs: dict[str, list[dict[str, object]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-stubs-") as tmp:
        folder = Path(tmp)
        user = generate_user_file(folder)
        for _ in range(args.repeat):
            for checker, run in (("mypy", run_mypy), ("pyright", run_pyright)):
                for with_stubs in (False, True):
                    key = f"{checker}/{'stubs' if with_stubs else 'source'}"
                    result = run(folder, user, with_stubs)
                    runs.setdefault(key, []).append(result)
                    print(f"  {key:16} {result['seconds']:7.2f} s  rc={result['returncode']}  errors={result['errors']}",
                          file=sys.stderr)

    rows = []
    for checker in ("mypy", "pyright"):
        source = statistics.median(float(r["seconds"]) for r in runs[f"{checker}/source"])  # type: ignore[arg-type]
        stubs = statistics.median(float(r["seconds"]) for r in runs[f"{checker}/stubs"])  # type: ignore[arg-type]
        rows.append({
            "checker": checker,
            "source_s": round(source, 2),
            "stubs_s": round(stubs, 2),
            "ratio_source_over_stubs": round(source / stubs, 2),
            "errors_source": runs[f"{checker}/source"][-1]["errors"],
            "errors_stubs": runs[f"{checker}/stubs"][-1]["errors"],
        })

    print()
    print(f"{'checker':8} {'sglang source':>14} {'with stubs':>11} {'ratio':>6} {'errors src/stubs':>17}")
    for row in rows:
        print(f"{row['checker']:8} {row['source_s']:>12.2f} s {row['stubs_s']:>9.2f} s "
              f"{row['ratio_source_over_stubs']:>5.2f}x {row['errors_source']!s:>8}/{row['errors_stubs']!s:<8}")

    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = RESULTS / f"bench_stubs-{stamp}.json"
    out.write_text(json.dumps({
        "when": stamp,
        "python": sys.version.split()[0],
        "machine": platform.platform(),
        "repeat": args.repeat,
        "worker_modules": [f"sglang.srt.speculative.{m}" for m in WORKERS],
        "summary": rows,
        "runs": runs,
    }, indent=2))
    print(f"\nwrote {out.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
