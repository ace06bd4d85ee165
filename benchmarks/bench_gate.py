"""Gate and runtime figures, each measured beside its anchor in one run.

    .venv/bin/python benchmarks/bench_gate.py [--skip-naive] [--repeat N]

Prints a table (figure, ours, anchor, ratio) and writes
benchmarks/results/bench_gate.json. Figures:

* gate, both static checkers, cold (empty cache dir) on sglang.srt.speculative,
  against a naive gate: one file assigning each of the 8 workers to
  SpecWorker, checked by plain pyright and by mypy with
  follow_untyped_imports, one after the other, cold;
* the same gate warm (second run, nothing changed), against the naive cold time;
* isinstance(obj, SpecWorker) hit and miss, against typing.runtime_checkable,
  an ABC and (if installed) beartype.typing.Protocol;
* import spec_protocols, against import sglang.srt.speculative.base_spec_worker
  (fresh interpreters);
* a SpecWorkerBase default delegating to the draft worker, against a direct call;
* peak memory (max RSS of the child processes) of the gate and the naive gate.

Timings are noisy on shared machines: compare ratios from the same run only.
Nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

from sglang_workers import WORKERS  # benchmarks/ is sys.path[0] when run as a script

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


def _children_maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, proc.returncode


def gate_run(cache: Path) -> tuple[float, int]:
    env = {**os.environ, "SPEC_PROTOCOLS_CACHE_DIR": str(cache)}
    argv = [str(VENV_BIN / "spec-protocols"), "check", "sglang.srt.speculative",
            "--checker", "mypy", "--checker", "pyright", "--format", "json"]
    return _timed(argv, ROOT, env)


def naive_run(work: Path) -> tuple[float, int]:
    lines = ["from spec_protocols import SpecWorker"]
    for i, (module, cls) in enumerate(WORKERS.items()):
        lines.append(f"from sglang.srt.speculative.{module} import {cls}")
        lines.append(f"def _f{i}(w: {cls}) -> None:\n    _p: SpecWorker = w")
    (work / "naive.py").write_text("\n".join(lines) + "\n")
    (work / "mypy.ini").write_text(f"[mypy]\nfollow_untyped_imports = True\ncache_dir = {work / 'mypycache'}\nmypy_path = {ROOT}\n")
    (work / "pyrightconfig.json").write_text(json.dumps({"extraPaths": [str(ROOT)]}))
    t_pyright, _ = _timed([str(VENV_BIN / "pyright"), "--pythonpath", sys.executable, "naive.py"], work)
    t_mypy, _ = _timed([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "naive.py"], work)
    return t_pyright + t_mypy, 0


def import_time(statement: str) -> float:
    best = float("inf")
    for _ in range(3):
        t, rc = _timed([sys.executable, "-c", statement], ROOT)
        if rc == 0:
            best = min(best, t)
    return best


def isinstance_figures(repeat: int) -> dict[str, dict[str, float]]:
    import abc
    import typing

    import typing_extensions

    from spec_protocols import SpecWorker

    names = ["target_worker", "draft_worker", "alloc_memory_pool", "init_attention_backends", "init_cuda_graphs",
             "clear_cache_pool", "forward_batch_generation", "graph_memory_usage", "graph_time_usage", "weight_load_time"]

    def make_protocol(base: Any, deco: Any) -> Any:
        ns = {n: (lambda self: None) for n in names}
        return deco(type("P", (base,), ns))

    class Hit:
        pass

    for n in names:
        setattr(Hit, n, lambda self: None)
    for n in typing_extensions.get_protocol_members(SpecWorker):
        setattr(Hit, n, lambda self: None)

    class Miss:
        pass

    anchors: dict[str, Any] = {
        "typing.runtime_checkable": make_protocol(typing.Protocol, typing.runtime_checkable),
        "typing_extensions": make_protocol(typing_extensions.Protocol, typing_extensions.runtime_checkable),
    }
    abc_cls = abc.ABCMeta("A", (), {})
    abc_cls.register(Hit)
    anchors["abc"] = abc_cls
    try:
        from beartype.typing import Protocol as BProtocol
        from beartype.typing import runtime_checkable as brc

        anchors["beartype"] = make_protocol(BProtocol, brc)
    except ImportError:
        pass
    hit, miss = Hit(), Miss()
    out: dict[str, dict[str, float]] = {}
    for name, proto in [("SpecWorker (ours)", SpecWorker), *anchors.items()]:
        per = {}
        for label, obj in (("hit", hit), ("miss", miss)):
            n = 20000
            t = min(timeit.repeat(lambda: isinstance(obj, proto), number=n, repeat=repeat)) / n
            per[label] = t * 1e6
        out[name] = per
    return out


def delegation_figures(repeat: int) -> dict[str, float]:
    """ns per call of init_attention_backends() through SpecWorkerBase and its anchors."""
    from spec_protocols import SpecWorkerBase

    class Draft:
        def init_attention_backends(self) -> None:
            pass

    class W(SpecWorkerBase):
        def forward_batch_generation(self, batch, /, *, on_publish=None):  # type: ignore[no-untyped-def]
            raise NotImplementedError

    class HandWritten:
        """The same delegation written in the worker, as BaseSpecWorker's body is."""

        def __init__(self, draft: Draft) -> None:
            self._draft_worker = draft

        @property
        def draft_worker(self) -> Draft:
            return self._draft_worker

        def init_attention_backends(self) -> None:
            if self.draft_worker is not None:
                self.draft_worker.init_attention_backends()

    draft = Draft()
    w = W(target_worker=object(), draft_worker=draft)  # type: ignore[arg-type]
    n = 200000

    def per_call(fn: Any) -> float:
        return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e9

    out = {
        "spec_worker_base": per_call(w.init_attention_backends),
        "direct_draft_call": per_call(draft.init_attention_backends),
        "hand_written_delegation": per_call(HandWritten(draft).init_attention_backends),
    }
    try:  # sglang's own BaseSpecWorker default, when sglang imports here
        from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

        class S(BaseSpecWorker):
            pass

        s = S()
        s._draft_worker = draft  # type: ignore[attr-defined]
        out["sglang_base_spec_worker"] = per_call(s.init_attention_backends)
    except Exception:  # noqa: BLE001 - an anchor we can do without
        pass
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-naive", action="store_true", help="skip the (slow) naive gate anchor")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows: list[tuple[str, float, float, str]] = []
    record: dict[str, Any] = {"python": sys.version.split()[0]}

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        rss0 = _children_maxrss_mb()
        cold, rc_cold = gate_run(cache)
        warm, rc_warm = gate_run(cache)
        gate_rss = _children_maxrss_mb()
        record["gate"] = {"cold_s": cold, "warm_s": warm, "exit": [rc_cold, rc_warm], "max_child_rss_mb": gate_rss}
        if not args.skip_naive:
            work = Path(tmp) / "naive"
            work.mkdir()
            naive, _ = naive_run(work)
            naive_rss = _children_maxrss_mb()
            record["naive"] = {"cold_s": naive, "max_child_rss_mb": naive_rss}
            rows.append(("gate cold (s)", cold, naive, f"{cold / naive:.2f}x (target <= 0.2x)"))
            rows.append(("gate warm (s)", warm, naive, f"{warm / naive:.3f}x (target <= 0.05x)"))
            rows.append(("peak child RSS (MB)", gate_rss, naive_rss, "max over runs so far"))
        else:
            rows.append(("gate cold (s)", cold, float("nan"), "naive skipped"))
            rows.append(("gate warm (s)", warm, float("nan"), "naive skipped"))
        del rss0

    figures = isinstance_figures(args.repeat)
    record["isinstance_us"] = figures
    ours = figures["SpecWorker (ours)"]
    for name, per in figures.items():
        if name.startswith("SpecWorker"):
            continue
        for label in ("hit", "miss"):
            rows.append((f"isinstance {label} (us) vs {name}", ours[label], per[label], f"{ours[label] / per[label]:.2f}x"))

    ours_import = import_time("import spec_protocols")
    anchor_import = import_time("import sglang.srt.speculative.base_spec_worker")
    baseline_python = import_time("pass")
    record["import_s"] = {"spec_protocols": ours_import, "base_spec_worker": anchor_import, "bare_python": baseline_python}
    rows.append(("import (s, incl. interpreter)", ours_import, anchor_import, f"{ours_import / anchor_import:.3f}x; "
                 f"net {1000 * (ours_import - baseline_python):.0f} ms (target <= 30 ms)"))

    delegation = delegation_figures(args.repeat)
    record["delegation_ns"] = delegation
    ours_ns = delegation["spec_worker_base"]
    for anchor in ("direct_draft_call", "hand_written_delegation", "sglang_base_spec_worker"):
        if anchor in delegation:
            rows.append((f"delegating default (ns) vs {anchor}", ours_ns, delegation[anchor],
                         f"{ours_ns / delegation[anchor]:.2f}x (target <= 1.1x)"))

    print(f"{'figure':44} {'ours':>10} {'anchor':>10}  ratio")
    for name, a, b, ratio in rows:
        print(f"{name:44} {a:10.3f} {b:10.3f}  {ratio}")
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_gate.json").write_text(json.dumps(record, indent=2))
    print(f"wrote {out / 'bench_gate.json'}")


if __name__ == "__main__":
    main()
