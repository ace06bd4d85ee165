"""The class x release table of a run over several sglang releases (``--format text`` and ``markdown``).

    Class         Protocol     0.5.20*  0.5.23
    ------------  -----------  -------  --------------
    LegacyWorker  SpecWorker   pass     fail: __init__
    EagleWorker   SpecWorker   pass     pass

One row per (class, protocol) any release checked, one column per release in
the order given; a cell is the verdict, with the member the check fails on
(its lead problem's, ``+N`` for further failing members), ``-`` where that
release did not check the class. ``*`` marks a release read from source
only (mypy and pyright; the runtime checker imports only the installed
sglang). Under the table, each failing row's lead problem per release (the
releases where it is the same problem are named together), which release
the target passes, which source each column read, the run's notes and the
summary. The lines under the table wrap at 80 columns; the table itself is
as wide as its cells (a class or member name is never cut: it is what a
reader looks up, and beside a column per release an elided "Exam...orker"
could be either class).
"""

from __future__ import annotations

from spec_protocols.gate._model import Check, Problem, Result, Verdict
from spec_protocols.gate._reports._markdown import escape_cell
from spec_protocols.gate._reports._order import lead_problem, sorted_problems
from spec_protocols.gate._reports._phrasing import SEE_ALL, elide, paragraph, short_names
from spec_protocols.gate._reports._release_matrix import (
    ReleasesReport,
    cell_text,
    cells,
    release_notes,
    releases_summary_line,
    rows,
    verdict_by_release,
)

__all__ = ["column_labels", "markdown_table", "render_releases_markdown", "render_releases_text"]

WIDTH = 80
_SEP = "  "
_INDENT = "  "
_CONTINUED = "      "


def column_labels(report: ReleasesReport) -> list[str]:
    """Each release's column header: its label, ``*`` where it was static only."""
    return [label + ("*" if run.static_only else "") for label, run in zip(report.labels, report.runs, strict=True)]


def _where(problem: Problem) -> str:
    if problem.file is None:
        return ""
    return f" ({problem.file}:{problem.line})" if problem.line is not None else f" ({problem.file})"


def _lead_line(result: Result) -> str:
    """A failing result's lead problem, as the single-release text report words it."""
    lead = lead_problem(result.problems)
    if lead is None:
        return result.verdict.value
    head = f"{lead.checker}: {lead.member}{_where(lead)}" if lead.member else f"{lead.checker}{_where(lead)}"
    more = len(result.problems) - 1
    return f"{head}: {lead.message}{f' (+{more} more; {SEE_ALL})' if more > 0 else ''}"


def _failures(report: ReleasesReport, check: Check) -> list[tuple[list[str], str]]:
    """``check``'s failing releases grouped by their lead problem, in column order."""
    grouped: dict[str, list[str]] = {}
    for label, result in zip(report.labels, cells(report, check), strict=True):
        if result is not None and result.verdict is not Verdict.PASS:
            grouped.setdefault(_lead_line(result), []).append(label)
    return [(labels, line) for line, labels in grouped.items()]


def _wrapped(text: str, width: int, indent: str = _INDENT) -> list[str]:
    return paragraph(text, width, indent=indent, continued=_CONTINUED)


def render_releases_text(report: ReleasesReport, *, include_timings: bool = True, width: int = WIDTH) -> str:
    """Render *report* as the class x release table (see the module docstring)."""
    checks = rows(report)
    names = short_names(c.target for c in checks)
    headers = column_labels(report)
    table = [[cell_text(result) for result in cells(report, check)] for check in checks]
    protocol_w = max([len("Protocol"), *(len(c.protocol) for c in checks)])
    cell_ws = [max([len(h), *(len(row[n]) for row in table)]) for n, h in enumerate(headers)]
    # The class names are never elided: beside a column per release, "Exam...orker" could be either class.
    class_w = max([len("Class"), *(len(v) for v in names.values())])
    widths = [class_w, protocol_w, *cell_ws]

    def line(values: list[str]) -> str:
        return _SEP.join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    lines = [line(["Class", "Protocol", *headers]), line(["-" * w for w in widths])]
    for check, row in zip(checks, table, strict=True):
        lines.append(line([names[check.target], check.protocol, *row]))
    problems: list[str] = []
    for check in checks:
        failures = _failures(report, check)
        if failures:
            problems.append(f"{_INDENT}{check.target} ({check.protocol})")
        for labels, lead in failures:
            problems.extend(_wrapped(f"on {', '.join(labels)}: {lead}", width, _INDENT * 2))
    lines += ["", *problems, *([""] if problems else [])]
    if report.targets:
        lines.extend(_wrapped(f"checked: {' '.join(report.targets)}", width, ""))
    lines.append(verdict_by_release(report))
    lines.append("against:")
    for header, run in zip(headers, report.runs, strict=True):
        described = run.report.sglang.describe() if run.report.sglang is not None else f"--sglang {run.given}"
        lines.extend(_wrapped(f"{header}: {described}", width))
    lines.extend(f"note: {note}" for note in release_notes(report))
    lines.append(elide(releases_summary_line(report, include_timings=include_timings), width, keep="start"))
    return "\n".join(lines) + "\n"


def _code(text: str) -> str:
    one_line = " ".join(text.split())
    return escape_cell(one_line) if "`" in one_line else "`" + one_line.replace("|", "\\|") + "`"


def _label(header: str) -> str:
    """A column label in markdown: its ``*`` (static only) literal, never emphasis."""
    return escape_cell(header).replace("*", "\\*")


def _markdown_cell(result: Result | None) -> str:
    if result is None:
        return "-"
    text = cell_text(result)
    verdict, _, member = text.partition(": ")
    shown = f"**{verdict}**" if result.verdict is not Verdict.PASS else verdict
    if not member:
        return shown
    name, _, more = member.partition(" ")
    return f"{shown} ({_code(name)}{f' {more}' if more else ''})"


def _bullet(check: Check, label: str, problem: Problem) -> str:
    head = f"- {_code(check.target)} ({escape_cell(check.protocol)}) on sglang {escape_cell(label)}, {escape_cell(problem.checker)}"
    if problem.member:
        head += f", {_code(problem.member)}"
    text = f"{head}: {escape_cell(problem.message)}"
    if problem.file:
        text += f" ({_code(f'{problem.file}:{problem.line}' if problem.line is not None else problem.file)})"
    return text


def markdown_table(report: ReleasesReport) -> list[str]:
    """The class x release table's markdown lines (a column per release, ``*``: static only)."""
    checks = rows(report)
    names = short_names(c.target for c in checks)
    headers = column_labels(report)
    lines = ["| Class | Protocol | " + " | ".join(_label(h) for h in headers) + " |"]
    lines.append("|" + "---|" * (len(headers) + 2))
    for check in checks:
        row = [_code(names[check.target]), escape_cell(check.protocol), *(_markdown_cell(r) for r in cells(report, check))]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _markdown_problems(report: ReleasesReport) -> list[str]:
    """Every problem of every release (and those a baseline accepted), one bullet
    each: a problem several releases have alike is one bullet naming them."""
    found: dict[tuple[Check, Problem], list[str]] = {}
    baselined: dict[tuple[Check, Problem], list[str]] = {}
    for check in rows(report):
        for label, result in zip(report.labels, cells(report, check), strict=True):
            for problem in sorted_problems(result.problems) if result is not None else ():
                found.setdefault((check, problem), []).append(label)
            for problem in sorted_problems(result.baselined) if result is not None else ():
                baselined.setdefault((check, problem), []).append(label)
    listed = [_bullet(check, ", ".join(labels), problem) for (check, problem), labels in found.items()]
    accepted = [_bullet(check, ", ".join(labels), problem) for (check, problem), labels in baselined.items()]
    lines = ["", "### Problems", "", *(listed or ["None."])]
    return [*lines, "", "### Accepted by baseline", "", *accepted] if accepted else lines


def _markdown_notes(report: ReleasesReport) -> list[str]:
    """The run's notes, then each class's, the releases that gave the same note named together."""
    checks = rows(report)
    names = short_names(c.target for c in checks)
    notes = [f"- {escape_cell(n)}" for n in release_notes(report)]
    for check in checks:
        given: dict[str, list[str]] = {}
        for label, result in zip(report.labels, cells(report, check), strict=True):
            for note in result.notes if result is not None else ():
                given.setdefault(note, []).append(label)
        where = f"{_code(names[check.target])} ({escape_cell(check.protocol)})"
        notes += [f"- {where} on sglang {escape_cell(', '.join(by))}: {escape_cell(n)}" for n, by in given.items()]
    return ["", "### Notes", "", *notes] if notes else []


def render_releases_markdown(report: ReleasesReport, *, include_timings: bool = True) -> str:
    """Render *report* as a markdown summary line, the class x release table, the problems and the notes."""
    lines = [f"**spec-protocols**: {releases_summary_line(report, include_timings=include_timings)}", ""]
    lines += [f"{escape_cell(verdict_by_release(report))}.", "", *markdown_table(report)]
    lines += ["", "Checked against:", ""]
    for header, run in zip(column_labels(report), report.runs, strict=True):
        described = run.report.sglang.describe() if run.report.sglang is not None else f"--sglang {run.given}"
        lines.append(f"- {_label(header)}: {escape_cell(described)}")
    lines += [*_markdown_problems(report), *_markdown_notes(report)]
    return "\n".join(lines) + "\n"
