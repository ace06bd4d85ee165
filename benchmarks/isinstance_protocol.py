"""The hot-path guard of the sglang series: the protocol check against the nominal one, in one run.

    .venv/bin/python benchmarks/isinstance_protocol.py [--repeat N] [--number N]

Patch 0003 of integrations/sglang/0.5.23 replaces, in the batch-result
processor (run for every finished request),

    if isinstance(self.draft_worker, BaseSpecWorker):           # sglang 0.5.23
    if isinstance(self.draft_worker, SupportsRequestFinished):  # with the series

and the check's cost must not grow. ``draft_worker`` is one of three things,
each measured with both guards: a worker on sglang's ``BaseSpecWorker`` (every
in-tree worker), ``None`` (a server without speculative decoding, the common
case), and a worker with the hook but no sglang base (the one the series
exists for; the nominal guard says no, so the nominal figure is for a wrong
answer). Anchors: the same one-method protocol with ``typing_extensions``
alone (what an uncached protocol defined inside sglang would cost), and the
nominal guard itself. Target: the cached protocol check at most 1.0x the
nominal one on the first two.

Imports sglang's ``BaseSpecWorker`` (the installed 0.5.23; some seconds).
Prints a table and writes benchmarks/results/isinstance_protocol.json.
Timings are noisy on shared machines: compare ratios from the same run only.
Nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import timeit
from pathlib import Path
from typing import Any

import typing_extensions

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def _capability() -> Any:
    import spec_protocols

    found = getattr(spec_protocols, "SupportsRequestFinished", None)
    if found is None:
        sys.exit("spec_protocols has no SupportsRequestFinished: see integrations/sglang/README.md (library support)")
    return found


def _uncached_twin() -> Any:
    """The same protocol, built with typing_extensions alone (no per-class cache)."""

    @typing_extensions.runtime_checkable
    class SupportsRequestFinishedUncached(typing_extensions.Protocol):
        def note_request_finished(self, *, rid: str, natural_stop: bool) -> None: ...

    return SupportsRequestFinishedUncached


def subjects() -> dict[str, object]:
    from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

    class InTreeWorker(BaseSpecWorker):
        """What DSpark is, for the guard: a BaseSpecWorker subclass."""

        def forward_batch_generation(self, batch: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    class PluginWorker:
        """A worker with the hook and no sglang base."""

        def note_request_finished(self, *, rid: str, natural_stop: bool) -> None:
            pass

    return {"BaseSpecWorker subclass": InTreeWorker(), "None (no speculative decoding)": None, "worker without the base": PluginWorker()}


def measure(repeat: int, number: int) -> dict[str, dict[str, dict[str, float | bool]]]:
    from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

    guards = {
        "SupportsRequestFinished (cached)": _capability(),
        "BaseSpecWorker (nominal)": BaseSpecWorker,
        "typing_extensions protocol (uncached)": _uncached_twin(),
    }
    out: dict[str, dict[str, dict[str, float | bool]]] = {}
    for subject, obj in subjects().items():
        per: dict[str, dict[str, float | bool]] = {}
        for name, guard in guards.items():
            answer = isinstance(obj, guard)  # warms each cache once, as the server's first request does
            best = min(timeit.repeat(lambda: isinstance(obj, guard), number=number, repeat=repeat)) / number
            per[name] = {"ns": best * 1e9, "answer": answer}
        out[subject] = per
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=200_000)
    args = parser.parse_args()
    figures = measure(args.repeat, args.number)
    cached, nominal, uncached = "SupportsRequestFinished (cached)", "BaseSpecWorker (nominal)", "typing_extensions protocol (uncached)"
    print(f"{'draft_worker':32} {'cached ns':>10} {'nominal ns':>11} {'ratio':>7} {'uncached ns':>12} {'ratio':>7}  answers")
    for subject, per in figures.items():
        c, n, u = (float(per[k]["ns"]) for k in (cached, nominal, uncached))
        answers = "/".join("yes" if per[k]["answer"] else "no" for k in (cached, nominal, uncached))
        print(f"{subject:32} {c:10.1f} {n:11.1f} {c / n:6.2f}x {u:12.1f} {u / n:6.2f}x  {answers}")
    print("target: cached/nominal <= 1.0x for the BaseSpecWorker subclass and for None")
    RESULTS.mkdir(parents=True, exist_ok=True)
    record = {"python": platform.python_version(), "repeat": args.repeat, "number": args.number, "figures": figures}
    (RESULTS / "isinstance_protocol.json").write_text(json.dumps(record, indent=2))
    print(f"wrote {RESULTS / 'isinstance_protocol.json'}")


if __name__ == "__main__":
    main()
