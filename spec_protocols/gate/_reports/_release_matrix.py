"""A run over several sglang releases: one :class:`GateReport` per release, and the table they make.

``spec-protocols check TARGET --sglang 0.5.20 --sglang 0.5.23`` checks the
same targets on each release's own terms (one ``run_gate`` per release,
:mod:`spec_protocols.gate._releases_run`); the result is a
:class:`ReleasesReport`, which every format renders as one report
(:mod:`spec_protocols.gate._reports._release_table`): a class x release
table whose cells are the verdicts, with the failing member where one fails.

This module is the value and what every format reads off it alike: the
column labels, the rows (each class and protocol any release checked, in
the canonical order), the cell words, the run's notes once (a note every
release gave stands once; one only some gave names them), the summary.
Nothing here runs a checker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from spec_protocols.gate._model import Check, GateReport, Result, SkipReason, Verdict
from spec_protocols.gate._reports._messages import checkers_named, skip_note
from spec_protocols.gate._reports._order import lead_problem, ordered_checkers

__all__ = [
    "ReleaseRun",
    "ReleasesReport",
    "cell_text",
    "cells",
    "failing_member",
    "release_notes",
    "releases_summary_line",
    "rows",
    "static_only_note",
    "verdict_by_release",
]


@dataclass(frozen=True, slots=True)
class ReleaseRun:
    """One release's part of the run: the ``--sglang`` value as given, and its report."""

    given: str
    report: GateReport

    @property
    def static_only(self) -> bool:
        """Whether a chosen checker that imports the target was left out: the
        release is read from source, and the runtime checker can only import
        the installed sglang (:func:`~spec_protocols.gate._pipeline.checkers_for_sglang`)."""
        return any(skip.reason is SkipReason.SGLANG_NOT_INSTALLED for skip in self.report.skipped)


@dataclass(frozen=True, slots=True)
class ReleasesReport:
    """The releases a run checked, each with its report, in the order given."""

    runs: tuple[ReleaseRun, ...]
    #: The whole run's wall time (``"total"``); each release's own timings are in its report.
    timings: Mapping[str, float] = field(default_factory=dict[str, float])

    @property
    def ok(self) -> bool:
        """Whether every release passed every check."""
        return all(run.report.ok for run in self.runs)

    @property
    def labels(self) -> tuple[str, ...]:
        """Each run's column label: its release (``0.5.20``); where two runs
        read the same release number (the installed 0.5.23 and a fetched
        one), its origin too, and where even that repeats, the value given."""
        plain = [_release_of(run) for run in self.runs]
        with_origin = [
            label if plain.count(label) == 1 or run.report.sglang is None else f"{label} ({run.report.sglang.origin})"
            for label, run in zip(plain, self.runs, strict=True)
        ]
        return tuple(
            label if with_origin.count(label) == 1 else f"{label} [{run.given}]"
            for label, run in zip(with_origin, self.runs, strict=True)
        )

    @property
    def checkers(self) -> list[str]:
        """Every checker any release ran, in report order."""
        return ordered_checkers(name for run in self.runs for name in run.report.checkers)

    @property
    def checker_versions(self) -> dict[str, str]:
        """Each checker's version (one process: the same for every release)."""
        versions = {name: v for run in self.runs for name, v in run.report.checker_versions.items()}
        return {name: versions[name] for name in ordered_checkers(versions)}

    @property
    def targets(self) -> tuple[str, ...]:
        """What the run checked (the same for every release; the first's, which chose any default)."""
        return self.runs[0].report.targets if self.runs else ()

    @property
    def reused(self) -> tuple[str, ...]:
        """The checkers whose verdicts the cache gave, for some release."""
        return tuple(ordered_checkers(name for run in self.runs for name in run.report.reused))

    def summary(self) -> dict[str, int]:
        """The counts over every release's results (total, pass, fail, unverified, baselined)."""
        counts = {"total": 0, "pass": 0, "fail": 0, "unverified": 0, "baselined": 0}
        for run in self.runs:
            for result in run.report.results:
                counts["total"] += 1
                if result.verdict.value in counts:
                    counts[result.verdict.value] += 1
                counts["baselined"] += len(result.baselined)
        return counts


def _release_of(run: ReleaseRun) -> str:
    return run.report.sglang.release if run.report.sglang is not None else run.given


def rows(report: ReleasesReport) -> list[Check]:
    """Every (class, protocol) any release checked, by (target, protocol)."""
    checks = {result.check for run in report.runs for result in run.report.results}
    return sorted(checks, key=lambda c: (c.target, c.protocol))


def cells(report: ReleasesReport, check: Check) -> list[Result | None]:
    """``check``'s result on each release, in column order (None: that release did not check it)."""
    found: list[Result | None] = []
    for run in report.runs:
        found.append(next((r for r in run.report.results if r.check == check), None))
    return found


def failing_member(result: Result) -> str | None:
    """The member a failing result fails on (its lead problem's), or None."""
    if result.verdict is Verdict.PASS:
        return None
    lead = lead_problem(result.problems)
    return lead.member if lead is not None else None


def cell_text(result: Result | None) -> str:
    """A table cell: the verdict, and the member where the check fails
    (``fail: __init__``); ``-`` where the release did not check the class."""
    if result is None:
        return "-"
    member = failing_member(result)
    more = len({p.member for p in result.problems if p.member and not p.unverified} - {member})
    if member is None:
        return result.verdict.value
    return f"{result.verdict.value}: {member}{f' +{more}' if more else ''}"


def static_only_note(labels: Sequence[str], checkers: Sequence[str], kept: Sequence[str]) -> str:
    """What ``*`` after a release means: ``checkers`` skipped there, ``kept`` decided."""
    left = checkers_named(checkers)
    each = "it" if len(checkers) == 1 else "each"
    return (
        f"static only (marked *): {', '.join(labels)}: the {left} skipped there: --sglang reads "
        f"a release's source without installing it, and {each} can only import the installed sglang "
        f"(give its tree's path as one --sglang to have {'it' if len(checkers) == 1 else 'them'} run there); {' and '.join(kept)} decided"
    )


def release_notes(report: ReleasesReport) -> list[str]:
    """The run's notes, each once: a note every release gave as it is, one
    that only some gave after the releases that gave it (``sglang 0.5.19:
    ...``); the runtime checker's skip, which the table marks with ``*``, in
    one note of its own."""
    labels = report.labels
    skipped = {skip_note(skip) for run in report.runs for skip in run.report.skipped}
    given: dict[str, list[str]] = {}
    for label, run in zip(labels, report.runs, strict=True):
        for note in run.report.notes:
            if note not in skipped:
                given.setdefault(note, []).append(label)
    notes = [note if len(by) == len(report.runs) else f"sglang {', '.join(by)}: {note}" for note, by in given.items()]
    static = [label for label, run in zip(labels, report.runs, strict=True) if run.static_only]
    if static:
        skips = [skip for run in report.runs for skip in run.report.skipped]
        left_out = ordered_checkers(name for skip in skips for name in skip.checkers)
        kept = ordered_checkers(name for skip in skips for name in skip.kept)
        notes.append(static_only_note(static, left_out, kept))
    return notes


def releases_summary_line(report: ReleasesReport, *, include_timings: bool = True) -> str:
    """``"10 checked on 5 sglang releases: 6 pass, 4 fail, 0 unverified"``,
    the baselined problems when there are any, and ``" in 41.2s"`` with timings."""
    counts = report.summary()
    count = len(report.runs)
    line = (
        f"{counts['total']} checked on {count} sglang release{'s' if count != 1 else ''}: {counts['pass']} pass, "
        f"{counts['fail']} fail, {counts['unverified']} unverified"
    )
    if counts["baselined"]:
        line += f" ({counts['baselined']} baselined problem{'s' if counts['baselined'] != 1 else ''})"
    if include_timings and "total" in report.timings:
        line += f" in {report.timings['total']:.1f}s"
    return line


def verdict_by_release(report: ReleasesReport) -> str:
    """``"pass on 0.5.20; fail on 0.5.19, 0.5.21"``: which releases the whole
    target passes, which it fails (a class fails), and on which it is only
    unverified (no class fails, one could not be verified)."""
    by_state: dict[str, list[str]] = {"pass": [], "fail": [], "unverified": []}
    for label, run in zip(report.labels, report.runs, strict=True):
        if run.report.ok:
            state = "pass"
        elif any(r.verdict is Verdict.FAIL for r in run.report.results):
            state = "fail"
        else:
            state = "unverified"
        by_state[state].append(label)
    return "; ".join(f"{state} on {', '.join(labels)}" for state, labels in by_state.items() if labels)
