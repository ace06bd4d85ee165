"""``spec-protocols check --sglang A --sglang B``: several releases in one run, and its exit status.

``_check`` hands a run with more than one ``--sglang`` here; with one (or
none) nothing changes. The exit status is 1 if any release fails any
check; a ``--baseline`` applies to every release, and an entry is unused
(and fails the run) only where it accepted nothing on every release (a
problem only 0.5.20 has is a reason to keep its entry when 0.5.20 is among
the releases checked). ``--write-baseline`` records one release's problems:
it is refused here, before anything runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from spec_protocols.gate._cli._output import say, write
from spec_protocols.gate._model import GateError

if TYPE_CHECKING:
    from spec_protocols.gate._baseline import Baseline, BaselineEntry
    from spec_protocols.gate._checkers import Checker
    from spec_protocols.gate._reports._release_matrix import ReleasesReport

__all__ = ["run_release_matrix"]


def run_release_matrix(args: argparse.Namespace, checkers: Sequence[Checker], baseline: Baseline | None) -> int:
    """Check ``args.targets`` on each ``args.sglang``, render one report, and decide the exit status."""
    from spec_protocols.gate._releases_run import distinct_releases, run_releases, unused_everywhere
    from spec_protocols.gate._reports._release_formats import render_releases

    if args.write_baseline:
        raise GateError("--write-baseline records one release's problems: give one --sglang")
    releases = distinct_releases(args.sglang)
    report = run_releases(
        args.targets,
        releases=releases,
        checkers=checkers,
        baseline=args.baseline,
        timeout=args.timeout,
        allow_import=not args.no_import,
        cache=not args.no_cache,
    )
    unused: tuple[BaselineEntry, ...] = ()
    if baseline is not None and not args.ignore_unused_baseline:
        unused = unused_everywhere(report, baseline)
        report = _noting(report, unused)
    write(render_releases(report, args.format, include_timings=not args.no_timings), args.output)
    from spec_protocols.gate._baseline import unused_entry_line

    for entry in unused:
        say(unused_entry_line(entry))
    if report.reused:
        where = [label for label, run in zip(report.labels, report.runs, strict=True) if run.report.reused]
        on = "every release" if len(where) == len(report.runs) else f"sglang {', '.join(where)}"
        say(
            f"{', '.join(report.reused)}: verdicts reused from the cache on {on} (nothing they read changed; "
            "--no-cache runs them)"
        )
    return 0 if report.ok and not unused else 1


def _noting(report: ReleasesReport, unused: Sequence[BaselineEntry]) -> ReleasesReport:
    """*report* with the unused entries among each release's notes (so that
    every format lists them once, as a single run's report does)."""
    from spec_protocols.gate._baseline import note_unused

    runs = tuple(replace(run, report=note_unused(run.report, unused)) for run in report.runs)
    return replace(report, runs=runs)
