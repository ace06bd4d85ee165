"""``run``: a request's outcome; and ``run_gate``, ``run_releases``, its faces for Python callers.

The command line, pre-commit (through it), the pytest plugin, the watch mode
and the Python API all come here with a
:class:`~spec_protocols.gate._request.GateRequest`. An unchanged run is
answered from the run memo (``gate/_cache/_runs.py``) before any stage is
imported; otherwise the pipeline (``gate/_pipeline.py``) runs the stages of
each release the memo does not answer. Then, once for every entry point:
the baseline applied, the entries no release used, the baseline written.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from spec_protocols.gate._model import GateError, GateReport, ReadSet
from spec_protocols.gate._request import CachePolicy, GateOutcome, GateRequest

if TYPE_CHECKING:
    from spec_protocols.gate._baseline import Baseline, BaselineEntry
    from spec_protocols.gate._checkers import Checker
    from spec_protocols.gate._reports._release_matrix import ReleasesReport

__all__ = ["run", "run_gate", "run_releases"]


def run(request: GateRequest) -> GateOutcome:
    """Check ``request``'s targets on each of its releases; a :class:`GateError` on bad input."""
    start = time.perf_counter()
    baseline = _baseline_of(request)
    given = request.release_values
    keys = [_memo_key(request, release) for release in given]
    recalled = [_recalled(key) for key in keys]
    read: ReadSet | None = None
    if all(report is not None for report in recalled):
        reports = [report for report in recalled if report is not None]
    else:
        from spec_protocols.gate._pipeline import run_stages

        reports, read = run_stages(request, given, keys, recalled)
    from spec_protocols.gate._reports._release_matrix import ReleaseRun, ReleasesReport

    if baseline is not None:
        from spec_protocols.gate._baseline import apply_baseline

        reports = [apply_baseline(report, baseline) for report in reports]
    runs = tuple(ReleaseRun(value or "", report) for value, report in zip(given, reports, strict=True))
    matrix = ReleasesReport(runs, {"total": time.perf_counter() - start})
    unused = _unused(request, matrix, baseline)
    if unused:
        from spec_protocols.gate._baseline import note_unused

        matrix = replace(matrix, runs=tuple(replace(r, report=note_unused(r.report, unused)) for r in matrix.runs))
    written = None
    if request.write_baseline is not None:
        from spec_protocols.gate._baseline import write_baseline

        assert request.reason is not None
        entries = write_baseline(matrix.runs[0].report, request.write_baseline, reason=request.reason).entries
        written = (request.write_baseline, len(entries))
    return GateOutcome(matrix, unused, written, read)


def _baseline_of(request: GateRequest) -> Baseline | None:
    """The ``--baseline`` to apply, read now (as is ``--write-baseline``'s
    file): a typo in a baseline is exit 2 at once, before the checkers run.
    The file to be written is read as its writer will read it (whole-class
    entries without message are replaced)."""
    if request.baseline is None and request.write_baseline is None:
        return None
    from spec_protocols.gate._baseline import load_baseline

    baseline = load_baseline(request.baseline) if request.baseline is not None else None
    if request.write_baseline is not None and request.write_baseline.exists():
        load_baseline(request.write_baseline, lenient=True)
    return baseline


def _unused(request: GateRequest, report: ReleasesReport, baseline: Baseline | None) -> tuple[BaselineEntry, ...]:
    """The baseline entries that accepted nothing on any release (a problem
    only 0.5.20 has keeps its entry in use while 0.5.20 is checked); none
    when unused entries are ignored, or when a baseline is being written
    (what it drops is the new file's business)."""
    if baseline is None or request.ignore_unused_baseline or request.write_baseline is not None:
        return ()
    from spec_protocols.gate._releases_run import unused_everywhere

    return unused_everywhere(report, baseline)


def _memo_key(request: GateRequest, release: str | None) -> str | None:
    """The run memo's key of ``request`` on ``release``; None where the request keeps no memo."""
    if request.cache is not CachePolicy.USE:
        return None
    from spec_protocols.gate._cache._runs import MemoRequest, memo_key

    checkers: tuple[tuple[str, str | None], ...] | None = None
    if request.registry is not None:
        from spec_protocols.gate._checkers import CHECKERS

        names = request.checkers if request.checkers is not None else tuple(request.registry)
        # A checker that is not the registry's own is keyed by its version too.
        checkers = tuple(
            (name, None if CHECKERS.get(name) is request.registry[name] else request.registry[name].version())
            for name in names
            if name in request.registry
        )
    elif request.checkers is not None:
        checkers = tuple((name, None) for name in request.checkers)
    return memo_key(MemoRequest(request.targets, checkers, request.allow_import, release))


def _recalled(key: str | None) -> GateReport | None:
    """An unchanged run's report from the run memo, before any stage is imported; else None."""
    if key is None:
        return None
    from spec_protocols.gate._cache._runs import recall_request

    return recall_request(key)


def run_gate(
    targets: Sequence[str],
    *,
    checkers: Sequence[Checker] | None = None,
    baseline: Path | None = None,
    timeout: float = 600.0,
    allow_import: bool = True,
    sglang: str | None = None,
    cache: bool = True,
) -> GateReport:
    """Check ``targets`` with ``checkers`` on one sglang; raise :class:`GateError` on bad input.

    ``checkers``: the checker objects to run (default: the registry's
    defaults; :func:`~spec_protocols.gate._checkers.checkers_named` picks them
    by name; a test passes fakes). ``allow_import=False`` leaves out the
    checkers that import the target (the runtime checker), so no target code
    runs. ``sglang``: check against that release (fetched into the cache) or
    the source tree at that path rather than the installed sglang; static
    checkers only. ``cache=False`` neither reuses nor stores anything
    (:mod:`spec_protocols.gate._cache`). ``baseline`` is applied; which of its
    entries are unused is the caller's to decide
    (:func:`~spec_protocols.gate._baseline.unused_entries`).
    """
    return run(_python_request(targets, () if sglang is None else (sglang,), checkers, baseline, timeout, allow_import, cache)).single


def run_releases(
    targets: Sequence[str],
    *,
    releases: Sequence[str],
    checkers: Sequence[Checker] | None = None,
    baseline: Path | None = None,
    timeout: float = 600.0,
    allow_import: bool = True,
    cache: bool = True,
) -> ReleasesReport:
    """Check ``targets`` on each of ``releases`` (``--sglang`` values: a release
    or a path each), side by side; the reports in the order given, ``baseline``
    applied (its unused entries: :func:`~spec_protocols.gate._releases_run.unused_everywhere`)."""
    if not releases:
        raise GateError("no sglang release given")
    return run(_python_request(targets, tuple(releases), checkers, baseline, timeout, allow_import, cache)).report


def _python_request(
    targets: Sequence[str],
    releases: tuple[str, ...],
    checkers: Sequence[Checker] | None,
    baseline: Path | None,
    timeout: float,
    allow_import: bool,
    cache: bool,
) -> GateRequest:
    """The request a Python caller's arguments make: its own checker objects, by name."""
    chosen = None if checkers is None else tuple(checkers)
    return GateRequest(
        targets=tuple(targets),
        releases=releases,
        checkers=None if chosen is None else tuple(dict.fromkeys(c.name for c in chosen)),
        registry=None if chosen is None else {c.name: c for c in reversed(chosen)},
        allow_import=allow_import,
        baseline=baseline,
        ignore_unused_baseline=True,  # the caller's decision
        timeout=timeout,
        cache=CachePolicy.USE if cache else CachePolicy.OFF,
    )
