"""The ``--format json`` report, and the canonical order every format shares.

The JSON report is the machine-readable contract of the gate: one object,

    {"version": 1, "results": [...], "summary": {...},
     "checkers": [...], "checker_versions": {...},
     "sglang": {"release", "origin", "path", "pin"} | null, "targets": [...],
     "notes": [...], "timings": {...}}

``sglang`` is the release whose contract the run checked (its source's
origin: ``installed``, ``path`` or ``fetched``; ``pin``: the supported
release the protocols were pinned to, null outside the supported range);
null when no sglang was found. ``targets`` are what the run checked, as
given (or the embedded default it chose).

Each result carries its own ``notes`` (why a checker skipped, that the class
is an abstract base); the top-level ``notes`` are the run's (files discovery
passed over, a checker that skipped everything). Notes are never problems.
A problem with ``"unverified": true`` is a blind spot (the checker saw
``Any``), not a failure.

It is deterministic: the same verdicts give the same bytes, whatever order
the checkers finished in. Results are sorted by (target, protocol), problems
by (checker, member, line, message), checkers in :data:`CHECKER_NAMES` order,
and every object's keys are written in a fixed order. ``timings`` is the only
part that may differ between two runs, and ``include_timings=False`` leaves it
out, so two reports can be compared byte for byte (``diff`` in CI, snapshot
tests).

The order itself is :mod:`spec_protocols.gate._reports._order`, which every
format shares.
"""

from __future__ import annotations

import json
from typing import Any

from spec_protocols.gate._model import GateReport, Problem, Result
from spec_protocols.gate._reports._order import ordered_checkers, sorted_problems, sorted_results, summary_counts

__all__ = ["JSON_VERSION", "render_json", "results_json"]

#: The ``version`` field of the JSON report. Bump it on any incompatible change.
JSON_VERSION = 1


def _problem_json(problem: Problem) -> dict[str, Any]:
    # Keys are listed explicitly (not dataclasses.asdict) so that the order is
    # the documented one even if the dataclass's fields are ever reordered.
    return {
        "checker": problem.checker,
        "member": problem.member,
        "message": problem.message,
        "file": problem.file,
        "line": problem.line,
        "unverified": problem.unverified,
    }


def _result_json(result: Result) -> dict[str, Any]:
    return {
        "target": result.check.target,
        "protocol": result.check.protocol,
        "verdict": result.verdict.value,
        "checkers": {
            name: result.checkers[name].value for name in ordered_checkers(result.checkers)
        },
        "problems": [_problem_json(p) for p in sorted_problems(result.problems)],
        "baselined": [_problem_json(p) for p in sorted_problems(result.baselined)],
        "notes": list(result.notes),
    }


def _sglang_json(report: GateReport) -> dict[str, Any] | None:
    checked = report.sglang
    if checked is None:
        return None
    return {"release": checked.release, "origin": checked.origin, "path": checked.path, "pin": checked.pin}


def results_json(report: GateReport, *, with_sglang: bool = False) -> list[dict[str, Any]]:
    """The ``results`` of *report*, in the canonical order; ``with_sglang``
    adds to each its ``"sglang"``: the release it was checked against, the
    object the top-level ``"sglang"`` is (a run over several releases,
    :mod:`spec_protocols.gate._reports._release_table`)."""
    if not with_sglang:
        return [_result_json(r) for r in sorted_results(report)]
    return [{**_result_json(r), "sglang": _sglang_json(report)} for r in sorted_results(report)]


def render_json(report: GateReport, *, include_timings: bool = True) -> str:
    """Render *report* as the JSON report (one object, indented, ending in a newline).

    With ``include_timings=False`` the ``timings`` key is absent, and the
    output depends only on the verdicts and problems.
    """
    document: dict[str, Any] = {
        "version": JSON_VERSION,
        "results": [_result_json(r) for r in sorted_results(report)],
        "summary": summary_counts(report),
        "checkers": ordered_checkers(report.checkers),
        "checker_versions": {name: report.checker_versions[name] for name in ordered_checkers(report.checker_versions)},
        "sglang": _sglang_json(report),
        "targets": list(report.targets),
        "notes": list(report.notes),
    }
    if include_timings:
        # Rounded to the millisecond: more digits are noise, and sorted keys
        # keep even this part stable when the timings themselves are equal.
        document["timings"] = {k: round(report.timings[k], 3) for k in sorted(report.timings)}
    # ensure_ascii=False: messages may quote non-ASCII identifiers; JSON is UTF-8.
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
