"""``run_gate``: the whole pipeline, for the CLI, the pytest plugin and scripts.

    targets -> discovery -> harness -> checkers (in parallel) -> verdicts -> report
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from spec_protocols.gate.checkers.base import StaticRun
from spec_protocols.gate.discovery import discover, find_module_file, imported_modules, resolve_target, search_path
from spec_protocols.gate.environment import cache_dir, check_no_installed_stubs, stub_overlay
from spec_protocols.gate.harness import build_harness
from spec_protocols.gate.model import CHECKER_NAMES, CheckerOutcome, Discovery, GateError, GateReport
from spec_protocols.gate.verdicts import combine

__all__ = ["DEFAULT_TARGET", "default_targets", "run_gate"]

#: What `spec-protocols check` checks with no TARGET, when sglang is installed.
DEFAULT_TARGET = "sglang.srt.speculative"
#: ... and otherwise: reference workers shipped with this package.
REFERENCE_TARGET = "spec_protocols.reference"


def default_targets() -> list[str]:
    """The embedded default: the installed sglang's speculative package, else the reference workers."""
    if find_module_file(DEFAULT_TARGET, search_path()) is not None:
        return [DEFAULT_TARGET]
    return [REFERENCE_TARGET]


def run_gate(
    targets: Sequence[str],
    *,
    checkers: Sequence[str] = CHECKER_NAMES,
    baseline: Path | None = None,
    timeout: float = 600.0,
    allow_import: bool = True,
) -> GateReport:
    """Check ``targets`` with ``checkers``; raise :class:`GateError` on bad input.

    ``allow_import=False`` refuses the runtime checker, so no target code runs.
    """
    start = time.perf_counter()
    unknown = [c for c in checkers if c not in CHECKER_NAMES]
    if unknown:
        raise GateError(f"unknown checker {unknown[0]!r}; choose from {', '.join(CHECKER_NAMES)}")
    chosen = [c for c in CHECKER_NAMES if c in checkers]
    if not chosen:
        raise GateError("no checker chosen")
    if not allow_import and "runtime" in chosen:
        raise GateError("--no-import forbids the runtime checker, which imports the target")
    timings: dict[str, float] = {}

    resolved = [resolve_target(t) for t in (targets or default_targets())]
    t0 = time.perf_counter()
    found = discover(resolved)
    timings["discovery"] = time.perf_counter() - t0
    classes = {c.dotted: c for c in found.classes}

    outcomes = _run_checkers(found, chosen, timeout)
    for outcome in outcomes:
        timings[outcome.checker] = outcome.seconds
    checks = sorted({check for o in outcomes for check in o.verdicts})
    report = GateReport(combine(checks, outcomes, classes), tuple(chosen), timings)
    if baseline is not None:
        from spec_protocols.gate.baseline import apply_baseline, load_baseline

        report = apply_baseline(report, load_baseline(baseline))
    timings["total"] = time.perf_counter() - start
    return GateReport(report.results, report.checkers, dict(timings))


def _skippable(found: Discovery) -> list[str]:
    """The sglang modules that the code under check imports and no check reads."""
    names = [n for n in imported_modules(found.source_modules) if n.partition(".")[0] == "sglang"]
    path = search_path(found.search_roots)
    return [n for n in names if n not in found.source_modules and find_module_file(n, path) is not None]


def _run_checkers(found: Discovery, chosen: Sequence[str], timeout: float) -> list[CheckerOutcome]:
    static = [c for c in chosen if c != "runtime"]
    workdir: Path | None = None
    try:
        jobs: list[Future[CheckerOutcome]] = []
        with ThreadPoolExecutor(max_workers=len(chosen)) as pool:
            if static:
                check_no_installed_stubs(found.source_modules)
                harness = build_harness(found.classes)
                overlay, stubbed = stub_overlay(found.source_modules, skip=_skippable(found))
                base = cache_dir() / "runs"
                base.mkdir(parents=True, exist_ok=True)
                workdir = Path(tempfile.mkdtemp(prefix="run-", dir=base))
                harness_file = workdir / f"{harness.module_name}.py"
                harness_file.write_text(harness.text, encoding="utf-8")
                run = StaticRun(harness, harness_file, workdir, overlay, found.source_modules, found.search_roots, timeout)
                if "mypy" in static:
                    from spec_protocols.gate.checkers.mypy import run_mypy

                    jobs.append(pool.submit(run_mypy, run, stubbed))
                if "pyright" in static:
                    from spec_protocols.gate.checkers.pyright import run_pyright

                    jobs.append(pool.submit(run_pyright, run))
            if "runtime" in chosen:
                from spec_protocols.gate.checkers.runtime import run_runtime

                jobs.append(pool.submit(run_runtime, found.classes, found.search_roots, timeout))
            outcomes = [job.result() for job in jobs]
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
    order = {name: i for i, name in enumerate(CHECKER_NAMES)}
    return sorted(outcomes, key=lambda o: order[o.checker])


