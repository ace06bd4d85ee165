"""The ``--format github`` report: GitHub Actions workflow commands.

One ``::error`` annotation per problem of every result that fails the gate,

    ::error file=F,line=L,title=spec-protocols SpecWorker (mypy)::pkg.mod.Cls: member: message

so that each problem shows on the pull request's diff at its member's ``def``
(the class line for a member the class lacks),
a ``::notice`` for each of the run's notes, and a final ``::notice`` with the
summary. Baselined problems are not
annotated: a baseline exists to keep known deviations quiet.

Escaping follows the Actions runner (``toolkit/packages/core/src/command.ts``):
in the message, ``%``, ``\\r`` and ``\\n`` become ``%25``, ``%0D``, ``%0A``; in
a property value, ``:`` and ``,`` also become ``%3A`` and ``%2C``, since they
delimit properties. Without this a multi-line checker message would end the
annotation early and print the rest as plain log text.
"""

from __future__ import annotations

from spec_protocols.gate._model import GateReport, Problem, Result, Verdict
from spec_protocols.gate._reports._order import sorted_problems, sorted_results
from spec_protocols.gate._reports._phrasing import summary_line

__all__ = ["error_commands", "escape_data", "escape_property", "notice_command", "render_github"]


def escape_data(value: str) -> str:
    """Escape a workflow command's message (the text after ``::``)."""
    # "%" first, or the "%" of the other escapes would be escaped again.
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a workflow command property value (``file=``, ``title=``...)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, properties: list[tuple[str, str]], message: str) -> str:
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{kind}{' ' + props if props else ''}::{escape_data(message)}"


def _annotation(result: Result, problem: Problem, release: str | None = None) -> str:
    properties: list[tuple[str, str]] = []
    # GitHub places an annotation by file; a line without a file means nothing.
    if problem.file:
        properties.append(("file", problem.file))
        if problem.line is not None:
            properties.append(("line", str(problem.line)))
    # The checker goes in the title: mypy and pyright often report the same
    # member, and two otherwise identical annotations would look like a bug.
    properties.append(("title", f"spec-protocols {result.check.protocol} ({problem.checker}){_on(release)}"))
    parts = [result.check.target]
    if problem.member:
        parts.append(problem.member)
    parts.append(problem.message)
    return _command("error", properties, ": ".join(parts))


def _on(release: str | None) -> str:
    return f" [sglang {release}]" if release is not None else ""


def error_commands(report: GateReport, *, release: str | None = None) -> list[str]:
    """The ``::error`` lines of *report*: every problem of a ``fail``/``unverified``
    result, and one for a failing result with no recorded problem. ``release``
    (a run over several releases) ends each title with `` [sglang RELEASE]``."""
    lines: list[str] = []
    for result in sorted_results(report):
        if result.verdict is Verdict.PASS:
            continue
        problems = sorted_problems(result.problems)
        for problem in problems:
            lines.append(_annotation(result, problem, release))
        if not problems:
            lines.append(
                _command(
                    "error",
                    [("title", f"spec-protocols {result.check.protocol}{_on(release)}")],
                    f"{result.check.target}: {result.verdict.value}",
                )
            )
    return lines


def notice_command(title: str, message: str) -> str:
    """One ``::notice`` line."""
    return _command("notice", [("title", title)], message)


def render_github(report: GateReport, *, include_timings: bool = True) -> str:
    """Render *report* as GitHub workflow commands, one per line.

    Every problem of a ``fail``/``unverified`` result gives an ``::error``;
    a failing result with no recorded problem still gives one, so that a red
    gate is never without an annotation. The last line is an ``::notice`` with
    the summary.
    """
    lines = error_commands(report)
    for note in report.notes:
        lines.append(_command("notice", [("title", "spec-protocols note")], note))
    lines.append(
        _command("notice", [("title", "spec-protocols")], summary_line(report, include_timings=include_timings))
    )
    return "\n".join(lines) + "\n"
