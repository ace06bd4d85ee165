"""The canonical order every report format shares, and the summary counts.

Results by (target, protocol), problems by (checker, member, line, message),
checkers in the registry's order (:data:`~spec_protocols.gate._checkers.CHECKER_NAMES`): never the
order in which checkers happened to finish, so that every format is
deterministic and all of them list things alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from spec_protocols.gate._checkers import CHECKER_NAMES, lead_order
from spec_protocols.gate._model import GateReport, Problem, Result

__all__ = ["by_lead", "lead_problem", "ordered_checkers", "problem_sort_key", "sorted_problems", "sorted_results", "summary_counts"]


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


def by_lead(problems: Iterable[Problem], lead: Sequence[str] = ()) -> list[Problem]:
    """Problems most useful first, as a view that shows one or a few orders
    them: a failure before a blind spot, one located in the source before one
    that is not, then by checker, in ``lead`` order (the report's
    :attr:`~spec_protocols.gate._model.GateReport.lead`; none given: each
    checker's own rank), then in the canonical order."""
    found = list(problems)
    order = list(lead) or lead_order(p.checker for p in found)
    rank = {name: n for n, name in enumerate(order)}
    return sorted(
        found,
        key=lambda p: (p.unverified, p.line is None, rank.get(p.checker, len(rank)), problem_sort_key(p)),
    )


def lead_problem(problems: Iterable[Problem], lead: Sequence[str] = ()) -> Problem | None:
    """The problem a one-problem view (a JUnit failure's ``message``, a
    release table's cell) shows: the first :func:`by_lead`."""
    ordered = by_lead(problems, lead)
    return ordered[0] if ordered else None


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
