"""One request, one outcome: what every entry point asks of the gate, and what it gets back.

The command line (``spec-protocols check``, and pre-commit through it), the
pytest plugin, the watch mode and the Python API each build one frozen
:class:`GateRequest` and hand it to :func:`run`, which returns a
:class:`GateOutcome`: a report over the releases asked for (one release is a
one-row table, rendered as a single run's report), the baseline entries no
release used, the baseline written, and the exit status. Nothing about a run
is decided twice: which releases, which checkers, the baseline's rule, the
run memo.

This module is the values; :mod:`spec_protocols.gate._run` runs a request.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spec_protocols.gate._model import GateError, GateReport, ReadSet

if TYPE_CHECKING:
    from spec_protocols.gate._baseline import BaselineEntry
    from spec_protocols.gate._checkers import Checker
    from spec_protocols.gate._reports._release_matrix import ReleasesReport

__all__ = ["CachePolicy", "GateOutcome", "GateRequest", "distinct_releases"]


class CachePolicy(enum.Enum):
    """What a run may reuse from the verdict cache (``gate/_cache/``)."""

    #: An unchanged run's whole report (the run memo), else each stage's stored result.
    USE = "use"
    #: Each stage's stored result, never a whole report: the run goes through
    #: every stage, so that it knows what it read (the watch mode's rounds).
    STAGES = "stages"
    #: Nothing: every stage and checker runs, and nothing is stored (``--no-cache``).
    OFF = "off"


@dataclass(frozen=True)
class GateRequest:
    """Everything one run of the gate is asked."""

    #: Dotted modules or packages, ``module:Class``, or paths; none: the embedded default.
    targets: tuple[str, ...] = ()
    #: ``--sglang`` values, each a release or a source tree, checked one by
    #: one; none: the installed sglang (else the newest supported release, fetched).
    releases: tuple[str, ...] = ()
    #: The checkers by name (None: the registry's defaults).
    checkers: tuple[str, ...] | None = None
    #: Where the names are looked up (None: the registry); a caller's own
    #: checker objects (the watch mode's warm ones, a test's fakes).
    registry: Mapping[str, Checker] | None = None
    #: False: no checker that imports the target (``--no-import``).
    allow_import: bool = True
    baseline: Path | None = None
    #: With ``baseline``: an entry that accepted nothing does not fail the run.
    ignore_unused_baseline: bool = False
    #: Record every problem in this file (with ``reason``); the run then exits 0 once written.
    write_baseline: Path | None = None
    reason: str | None = None
    #: Seconds each checker may take.
    timeout: float = 600.0
    cache: CachePolicy = CachePolicy.USE

    def __post_init__(self) -> None:
        if self.write_baseline is not None and not self.reason:
            raise GateError("--write-baseline needs --reason: every baseline entry states why it is accepted")
        if self.write_baseline is not None and len(self.releases) > 1:
            raise GateError("--write-baseline records one release's problems: give one --sglang")

    @property
    def release_values(self) -> tuple[str | None, ...]:
        """The releases to check (None: the installed sglang's); a :class:`GateError` for one given twice."""
        return distinct_releases(self.releases) if self.releases else (None,)


@dataclass(frozen=True)
class GateOutcome:
    """What a run gives back: its report over the releases, and the decisions about it."""

    report: ReleasesReport
    #: Baseline entries that accepted nothing on any release (already among the report's notes).
    unused: tuple[BaselineEntry, ...] = ()
    #: The baseline written (``write_baseline``), with its entry count.
    written: tuple[Path, int] | None = None
    #: What the run read: the files and folders its verdicts depend on (the
    #: watch mode polls them); None for a report recalled from the run memo.
    read: ReadSet | None = None

    @property
    def single(self) -> GateReport:
        """The report of a run over one release."""
        return self.report.runs[0].report

    def exit_status(self) -> int:
        """0 all pass (or the baseline was written, whatever the verdicts: that
        is the step's job); 1 any check not ``pass``, or an unused baseline
        entry; bad input never gets here (a :class:`GateError`, exit 2)."""
        if self.written is not None:
            return 0
        return 0 if self.report.ok and not self.unused else 1


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


