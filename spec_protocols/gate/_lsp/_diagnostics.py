"""The gate's report as an editor's diagnostics: each problem on the line of the file it is in.

A problem the checker placed (``Problem.file``/``line``: the member's
definition, the constructor, a call in the class's code) is shown there; one
it did not place (a missing member, a whole-class finding) is shown on the
class's own ``class`` line, found in the file that defines it. Each is in the
checker's words, with what to change under it where the finding says it
(``Problem.change``). A blind spot (``unverified``) is a warning: the checker
could not see, which is not the same as wrong. Problems a baseline accepted,
and checks that pass, show nothing.

Pure: no editor protocol here (the server turns these into its types), so the
mapping is tested without a client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from spec_protocols.gate._fix import class_defined
from spec_protocols.gate._model import GateReport, Problem, Result, Verdict

__all__ = ["Spot", "class_line", "spots_by_file"]


@dataclass(frozen=True, slots=True)
class Spot:
    """One diagnostic: where (``line`` from 1), what, whose, how grave."""

    path: Path
    line: int
    message: str
    #: ``spec-protocols (mypy)``: the checker whose words these are.
    source: str
    #: ``SpecWorker.forward_batch_generation`` (or ``SpecWorker`` for the class).
    code: str
    severity: Literal["error", "warning"]
    #: The member the finding is about (None: the class), for matching code actions.
    member: str | None


def spots_by_file(report: GateReport, locate: Callable[[str], tuple[Path, int] | None] | None = None) -> dict[Path, list[Spot]]:
    """Every problem of ``report``'s failing or unverified checks, by the file it is shown in.

    ``locate(target)`` gives a class's file and ``class`` line, for a problem
    the checker did not place (default: :func:`class_line` in the file of
    any placed problem of that check)."""
    found: dict[Path, list[Spot]] = {}
    seen: set[tuple[Path, int, str, str]] = set()
    for result in report.results:
        if result.verdict is Verdict.PASS:
            continue
        for problem in result.problems:
            spot = _spot(result, problem, locate or _located_by(result))
            if spot is None:
                continue
            key = (spot.path, spot.line, spot.source, spot.message)
            if key not in seen:  # a finding both a whole-class and a member form gave, once
                seen.add(key)
                found.setdefault(spot.path, []).append(spot)
    for spots in found.values():
        spots.sort(key=lambda s: (s.line, s.code, s.source))
    return found


def _spot(result: Result, problem: Problem, locate: Callable[[str], tuple[Path, int] | None]) -> Spot | None:
    if problem.file is not None and problem.line is not None:
        where: tuple[Path, int] | None = (Path(problem.file).resolve(), problem.line)
    else:
        where = locate(result.check.target)
    if where is None:
        return None
    message = problem.message
    if problem.change:
        message = f"{message}\nchange: {problem.change}"
    member = problem.member
    return Spot(
        path=where[0],
        line=max(1, where[1]),
        message=message,
        source=f"spec-protocols ({problem.checker})",
        code=f"{result.check.protocol}.{member}" if member else result.check.protocol,
        severity="warning" if problem.unverified else "error",
        member=member,
    )


def _located_by(result: Result) -> Callable[[str], tuple[Path, int] | None]:
    """Where ``result``'s class is: its ``class`` line in a file its placed problems name."""
    files = {Path(p.file).resolve() for p in result.problems if p.file is not None}

    def locate(target: str) -> tuple[Path, int] | None:
        for path in sorted(files):
            line = class_line(path, target)
            if line is not None:
                return path, line
        return None

    return locate


def class_line(path: Path, target: str) -> int | None:
    """The ``class`` line of ``target`` (``module.Outer.Class``) in ``path`` (the
    longest qualified name it ends with: ``Outer.Class`` before a top-level
    ``Class``); None where it is not defined there."""
    found = class_defined(path, target)
    return found[1] if found is not None else None
