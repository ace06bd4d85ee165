"""Several sglang releases in one run: telling the ``--sglang`` values apart, how many run at once, and the baseline's rule.

``spec-protocols check TARGET --sglang 0.5.20 --sglang 0.5.23`` is one run per
release (:func:`~spec_protocols.gate._pipeline.run_releases`), each on that
release's own terms exactly as a run with that one ``--sglang`` would be. The
releases run side by side on threads: a run spends most of its time waiting
on its checkers' processes, so threads keep the machine busy without a
process pool's start-up and pickling (and with the checker objects a caller
passed, fakes included). Measured on two shared cores, two or five releases at
once were no faster than one (five were slower): the work is CPU-bound and
one release's two static checkers fill both (docs/performance.md).
"""

from __future__ import annotations

import os

from spec_protocols.gate._baseline import Baseline, BaselineEntry, unused_entries
from spec_protocols.gate._reports._release_matrix import ReleasesReport

__all__ = ["release_jobs", "unused_everywhere"]


def release_jobs(count: int, jobs: int | None = None, *, checkers: int = 1) -> int:
    """How many of ``count`` releases run at once: ``jobs`` when given, else as
    many as the CPUs hold when each release runs its ``checkers`` in parallel
    (at least one; never more than there are releases)."""
    wanted = jobs if jobs is not None else (os.cpu_count() or 1) // max(1, checkers)
    return max(1, min(count, wanted))


def unused_everywhere(report: ReleasesReport, baseline: Baseline) -> tuple[BaselineEntry, ...]:
    """The baseline entries that accepted nothing on any release, in file order:
    a problem only 0.5.20 has keeps its entry in use while 0.5.20 is checked
    (the command line and the pytest plugin decide with it)."""
    per_release = [set(unused_entries(run.report, baseline)) for run in report.runs]
    first = unused_entries(report.runs[0].report, baseline) if report.runs else ()
    return tuple(entry for entry in first if all(entry in unused for unused in per_release))
