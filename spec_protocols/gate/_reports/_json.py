"""The ``--format json`` report, and the canonical order every format shares.

The JSON report is the machine-readable contract of the gate: one object,

    {"version": 1, "results": [...], "summary": {...},
     "checkers": [...], "checker_versions": {...}, "notes": [...], "timings": {...}}

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

The other formats import the ordering helpers from here, so that every
format lists results, checkers and problems in the same order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, cast

from spec_protocols.gate._model import (
    CHECKER_NAMES,
    Check,
    GateError,
    GateReport,
    Problem,
    Result,
    Verdict,
)

__all__ = [
    "JSON_VERSION",
    "json_list",
    "json_object",
    "ordered_checkers",
    "parse_json",
    "problem_sort_key",
    "render_json",
    "sorted_problems",
    "sorted_results",
    "summary_counts",
]

#: The ``version`` field of the JSON report. Bump it on any incompatible change.
JSON_VERSION = 1


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
        "notes": list(report.notes),
    }
    if include_timings:
        # Rounded to the millisecond: more digits are noise, and sorted keys
        # keep even this part stable when the timings themselves are equal.
        document["timings"] = {k: round(report.timings[k], 3) for k in sorted(report.timings)}
    # ensure_ascii=False: messages may quote non-ASCII identifiers; JSON is UTF-8.
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def json_object(raw: object) -> dict[str, object] | None:
    """*raw* (a value from ``json.loads``) as a JSON object, or ``None``.

    The cast is sound: JSON object keys are always strings. It turns the
    checkers' "unknown" dict into one whose values must be narrowed.
    """
    return cast("dict[str, object]", raw) if isinstance(raw, dict) else None


def json_list(raw: object) -> list[object] | None:
    """*raw* (a value from ``json.loads``) as a JSON array, or ``None``."""
    return cast("list[object]", raw) if isinstance(raw, list) else None


def _expect(cond: bool, what: str) -> None:
    if not cond:
        raise GateError(f"invalid JSON report: {what}")


def _parse_problem(value: object, where: str) -> Problem:
    raw = json_object(value)
    if raw is None:
        raise GateError(f"invalid JSON report: {where} is not an object")
    checker, member, message = raw.get("checker"), raw.get("member"), raw.get("message")
    file, line, unverified = raw.get("file"), raw.get("line"), raw.get("unverified", False)
    # Explicit isinstance tests (not a helper) so that the type checkers narrow.
    if not isinstance(checker, str) or not isinstance(message, str):
        raise GateError(f"invalid JSON report: {where} lacks a checker or message string")
    if member is not None and not isinstance(member, str):
        raise GateError(f"invalid JSON report: {where}.member is not a string or null")
    if file is not None and not isinstance(file, str):
        raise GateError(f"invalid JSON report: {where}.file is not a string or null")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
        raise GateError(f"invalid JSON report: {where}.line is not an integer or null")
    if not isinstance(unverified, bool):
        raise GateError(f"invalid JSON report: {where}.unverified is not a boolean")
    return Problem(checker=checker, member=member, message=message, file=file, line=line, unverified=unverified)


def _parse_notes(raw: object, where: str) -> tuple[str, ...]:
    notes = json_list(raw)
    if notes is None or not all(isinstance(n, str) for n in notes):
        raise GateError(f"invalid JSON report: {where} is not a list of strings")
    return tuple(str(n) for n in notes)


def _parse_verdict(raw: object, where: str) -> Verdict:
    try:
        return Verdict(raw)
    except ValueError:
        raise GateError(f"invalid JSON report: {where} is not a verdict: {raw!r}") from None


def parse_json(text: str) -> GateReport:
    """Read a JSON report back into a :class:`GateReport` (the inverse of
    :func:`render_json`, up to ordering and timing precision).

    Used to re-render a saved report in another format, or to write a
    baseline from a report made elsewhere. Raises :class:`GateError` with a
    one-line message when *text* is not a version-1 JSON report.
    """
    try:
        doc = json_object(json.loads(text))
    except json.JSONDecodeError as exc:
        raise GateError(f"invalid JSON report: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if doc is None:
        raise GateError("invalid JSON report: not a JSON object")
    _expect(doc.get("version") == JSON_VERSION, f"unsupported version {doc.get('version')!r}")
    raw_results = json_list(doc.get("results"))
    if raw_results is None:
        raise GateError("invalid JSON report: results is not a list")
    results: list[Result] = []
    for i, value in enumerate(raw_results):
        where = f"results[{i}]"
        raw = json_object(value)
        if raw is None:
            raise GateError(f"invalid JSON report: {where} is not an object")
        target, protocol = raw.get("target"), raw.get("protocol")
        if not isinstance(target, str) or not isinstance(protocol, str):
            raise GateError(f"invalid JSON report: {where} lacks a target or protocol string")
        raw_checkers = json_object(raw.get("checkers", {}))
        if raw_checkers is None:
            raise GateError(f"invalid JSON report: {where}.checkers is not an object")
        checkers: Mapping[str, Verdict] = {
            name: _parse_verdict(v, f"{where}.checkers.{name}") for name, v in raw_checkers.items()
        }
        lists: dict[str, tuple[Problem, ...]] = {}
        for key in ("problems", "baselined"):
            raw_list = json_list(raw.get(key, []))
            if raw_list is None:
                raise GateError(f"invalid JSON report: {where}.{key} is not a list")
            lists[key] = tuple(
                _parse_problem(p, f"{where}.{key}[{j}]") for j, p in enumerate(raw_list)
            )
        results.append(
            Result(
                check=Check(target=target, protocol=protocol),
                verdict=_parse_verdict(raw.get("verdict"), f"{where}.verdict"),
                checkers=checkers,
                problems=lists["problems"],
                baselined=lists["baselined"],
                notes=_parse_notes(raw.get("notes", []), f"{where}.notes"),
            )
        )
    names: list[str] = []
    raw_names = json_list(doc.get("checkers", []))
    for name in raw_names if raw_names is not None else [None]:
        if not isinstance(name, str):
            raise GateError("invalid JSON report: checkers is not a list of names")
        names.append(name)
    timings: dict[str, float] = {}
    raw_timings = json_object(doc.get("timings", {}))
    for key, seconds in (raw_timings if raw_timings is not None else {"": None}).items():
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
            raise GateError("invalid JSON report: timings is not an object of numbers")
        timings[key] = float(seconds)
    notes = _parse_notes(doc.get("notes", []), "notes")
    return GateReport(results=tuple(results), checkers=tuple(names), timings=timings, notes=notes)
