"""``run_releases``: the gate on several sglang releases in one run.

``spec-protocols check TARGET --sglang 0.5.20 --sglang 0.5.23`` is one
:func:`~spec_protocols.gate._pipeline.run_gate` per release, each on that
release's own terms exactly as a run with that one ``--sglang`` would be,
gathered into one :class:`~spec_protocols.gate._reports._release_matrix.ReleasesReport`.

The releases run side by side, on threads: a run spends most of its time
waiting on its checkers' processes (mypy, pyright, the runtime probe), so
threads keep the machine busy without the start-up and pickling of a process
pool (and with the checker objects a caller passed, fakes included). Each
release already runs its checkers in parallel, so as many releases run at
once as the CPUs hold their checkers (:func:`release_jobs`: two CPUs and
mypy with pyright make one at a time; sixteen make eight). Measured on two
shared cores (five releases, docs/releases.md's example plugin), two or five
at once were no faster than one and five were slower: the work is CPU-bound
and one release's two checkers already fill both. The
verdict cache is the one every run shares: each release's entries are keyed
by its own source, as a single run keys them, so a release checked before is
answered from the cache, and two releases never share an entry.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from spec_protocols.gate._baseline import Baseline, BaselineEntry, unused_entries
from spec_protocols.gate._checkers import DEFAULT_CHECKERS, Checker
from spec_protocols.gate._model import GateError, GateReport
from spec_protocols.gate._pipeline import run_gate
from spec_protocols.gate._reports._release_matrix import ReleaseRun, ReleasesReport

__all__ = ["distinct_releases", "release_jobs", "run_releases", "unused_everywhere"]


def distinct_releases(given: Sequence[str]) -> tuple[str, ...]:
    """The ``--sglang`` values, each once; a :class:`GateError` for one given
    twice (the same release, or two spellings of the same path), before anything runs."""
    seen: dict[str, str] = {}
    for value in given:
        key = _identity(value)
        if key in seen:
            also = "" if seen[key] == value else f" (as --sglang {seen[key]})"
            raise GateError(f"--sglang {value} is given twice{also}: name each release once")
        seen[key] = value
    return tuple(given)


def _identity(value: str) -> str:
    """What a ``--sglang`` value names: an existing path by its real location, a release by its text."""
    path = Path(value).expanduser()
    return f"path:{path.resolve()}" if path.exists() else f"release:{value.strip()}"


def release_jobs(count: int, jobs: int | None = None, *, checkers: int = 1) -> int:
    """How many of ``count`` releases run at once: ``jobs`` when given, else as
    many as the CPUs hold when each release runs its ``checkers`` in parallel
    (at least one; never more than there are releases)."""
    wanted = jobs if jobs is not None else (os.cpu_count() or 1) // max(1, checkers)
    return max(1, min(count, wanted))


def run_releases(
    targets: Sequence[str],
    *,
    releases: Sequence[str],
    checkers: Sequence[Checker] = DEFAULT_CHECKERS,
    baseline: Path | None = None,
    timeout: float = 600.0,
    allow_import: bool = True,
    cache: bool = True,
    jobs: int | None = None,
) -> ReleasesReport:
    """Check ``targets`` on each of ``releases`` (``--sglang`` values: a
    release or a path each), in parallel (:func:`release_jobs`); the reports in
    the order given. A :class:`GateError` of any release (bad input, a release
    that cannot be fetched, a crashed checker) is the run's: the first, in the
    order given, once every started release has finished."""
    given = distinct_releases(releases)
    if not given:
        raise GateError("no sglang release given")
    start = time.perf_counter()

    def one(release: str) -> GateReport:
        return run_gate(
            targets,
            checkers=checkers,
            baseline=baseline,
            timeout=timeout,
            allow_import=allow_import,
            sglang=release,
            cache=cache,
        )

    workers = release_jobs(len(given), jobs, checkers=len({c.name for c in checkers}))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sglang-release") as pool:
        futures: list[Future[GateReport]] = [pool.submit(one, release) for release in given]
        reports = [_outcome(future, futures) for future in futures]
    runs = tuple(ReleaseRun(release, report) for release, report in zip(given, reports, strict=True))
    return ReleasesReport(runs, {"total": time.perf_counter() - start})


def _outcome(future: Future[GateReport], futures: Sequence[Future[GateReport]]) -> GateReport:
    """``future``'s report; on its error, the releases not yet started are cancelled first."""
    try:
        return future.result()
    except BaseException:
        for other in futures:
            other.cancel()
        raise


def unused_everywhere(report: ReleasesReport, baseline: Baseline) -> tuple[BaselineEntry, ...]:
    """The baseline entries that accepted nothing on any release, in file order:
    a problem only 0.5.20 has keeps its entry in use while 0.5.20 is checked
    (the command line and the pytest plugin decide with it)."""
    per_release = [set(unused_entries(run.report, baseline)) for run in report.runs]
    first = unused_entries(report.runs[0].report, baseline) if report.runs else ()
    return tuple(entry for entry in first if all(entry in unused for unused in per_release))
