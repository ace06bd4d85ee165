"""The canonical order every report format shares, and the summary counts.

Results by (target, protocol), problems by (checker, member, line, message),
checkers in :data:`~spec_protocols.gate._model.CHECKER_NAMES` order: never the
order in which checkers happened to finish, so that every format is
deterministic and all of them list things alike.
"""

from __future__ import annotations

from collections.abc import Iterable

from spec_protocols.gate._model import CHECKER_NAMES, GateReport, Problem, Result

__all__ = ["lead_problem", "ordered_checkers", "problem_sort_key", "sorted_problems", "sorted_results", "summary_counts"]


def problem_sort_key(problem: Problem) -> tuple[str, str, int, str, str]:
    """The canonical sort key of a problem: (checker, member, line, message).

    ``None`` sorts as ``""`` / ``0``. The file comes last only to break ties,
    so that two problems differing only by file still order deterministically.
    """
    return (
        problem.checker,
        problem.member or "",
        problem.line or 0,
        problem.message,
        problem.file or "",
    )


def sorted_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Problems in the canonical order (see :func:`problem_sort_key`)."""
    return sorted(problems, key=problem_sort_key)


# Which checker's problem leads when several say something: pyright's reason
# is the most specific ("Missing keyword parameter "on_publish""), mypy's
# least; the runtime checker's messages carry no expected/got signatures.
_LEAD_CHECKERS = {"pyright": 0, "mypy": 1, "runtime": 2}


def lead_problem(problems: Iterable[Problem]) -> Problem | None:
    """The problem a one-problem view (the text table, a JUnit failure's
    ``message``) shows: a failure before a blind spot, one located in the
    source before one that is not, then by checker (see ``_LEAD_CHECKERS``),
    then in the canonical order."""
    return min(
        problems,
        key=lambda p: (p.unverified, p.line is None, _LEAD_CHECKERS.get(p.checker, len(_LEAD_CHECKERS)), problem_sort_key(p)),
        default=None,
    )


def sorted_results(report: GateReport) -> list[Result]:
    """The report's results sorted by (target, protocol)."""
    return sorted(report.results, key=lambda r: (r.check.target, r.check.protocol))


def ordered_checkers(names: Iterable[str]) -> list[str]:
    """Checker names in report order: :data:`CHECKER_NAMES` first, in its
    order, then any other name alphabetically; duplicates dropped.

    Reports never use the order a caller happened to pass, because that order
    depends on which checker finished first.
    """
    known = {name: i for i, name in enumerate(CHECKER_NAMES)}
    unique = set(names)
    return sorted(unique, key=lambda n: (known.get(n, len(known)), n))


def summary_counts(report: GateReport) -> dict[str, int]:
    """The ``summary`` object: total, pass, fail, unverified, baselined.

    ``baselined`` counts problems (not results) that a baseline accepted, so a
    reader sees that a green run still carries known deviations.
    """
    counts = report.summary()
    return {
        "total": counts["total"],
        "pass": counts["pass"],
        "fail": counts["fail"],
        "unverified": counts["unverified"],
        "baselined": sum(len(r.baselined) for r in report.results),
    }
