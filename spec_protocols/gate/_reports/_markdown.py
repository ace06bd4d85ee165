"""The ``--format markdown`` report: a conformance table for PR comments.

    **spec-protocols**: 2 checked: 1 pass, 1 fail, 0 unverified

    | Class | Protocol | runtime | mypy | pyright | Verdict |
    |---|---|---|---|---|---|
    | `EAGLEWorker` | SpecWorker | pass | pass | pass | pass |
    | `DFlashWorker` | SpecWorker | skipped | fail | fail | **fail** |

    ### Problems

    - `pkg.dflash.DFlashWorker` (SpecWorker), mypy, `step`: message (`pkg/dflash.py:12`)

Words, not emoji: the table must read the same in a terminal, in an e-mail
notification and to a screen reader. Failing verdicts are bold so that a
reviewer's eye lands on them. The output is deterministic, so a bot that
edits its PR comment in place only changes it when a verdict changes
(render with ``include_timings=False`` for that).
"""

from __future__ import annotations

from spec_protocols.gate._model import GateReport, Problem, Result, Verdict
from spec_protocols.gate._reports._order import ordered_checkers, sorted_problems, sorted_results
from spec_protocols.gate._reports._phrasing import short_names, summary_line

__all__ = ["escape_cell", "render_markdown"]


def escape_cell(text: str) -> str:
    """Make *text* safe inside a table cell or a list item: one line, with
    ``|`` escaped (it would split the cell) and ``<`` escaped (GitHub would
    read ``<class 'X'>`` as an HTML tag and hide it)."""
    one_line = " ".join(text.split())
    return one_line.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


def _code(text: str) -> str:
    # Inline code keeps identifiers verbatim; a backtick inside one would end
    # it early, so such text falls back to an escaped plain span.
    one_line = " ".join(text.split())
    if "`" in one_line:
        return escape_cell(one_line)
    # GFM splits table cells on "|" even inside a code span; "\\|" does not.
    return "`" + one_line.replace("|", "\\|") + "`"


def _verdict(value: str, failing: bool) -> str:
    return f"**{value}**" if failing else value


def _bullet(result: Result, problem: Problem) -> str:
    head = f"- {_code(result.check.target)} ({escape_cell(result.check.protocol)}), {escape_cell(problem.checker)}"
    if problem.member:
        head += f", {_code(problem.member)}"
    line = f"{head}: {escape_cell(problem.message)}"
    if problem.file:
        where = f"{problem.file}:{problem.line}" if problem.line is not None else problem.file
        line += f" ({_code(where)})"
    return line


def render_markdown(report: GateReport, *, include_timings: bool = True) -> str:
    """Render *report* as a markdown summary line, table and problem lists.

    The "Problems" section lists every problem of every result, failing or
    not (a passing result has none unless a checker's problems were outvoted);
    "Accepted by baseline" lists the baselined ones, so a reviewer sees what a
    green table still carries.
    """
    results = sorted_results(report)
    checkers = ordered_checkers([*report.checkers, *(n for r in results for n in r.checkers)])
    names = short_names(r.check.target for r in results)
    lines = [f"**spec-protocols**: {summary_line(report, include_timings=include_timings)}", ""]
    if report.sglang is not None:
        lines[-1:] = [f"Checked against {report.sglang.describe()}.", ""]
    header = ["Class", "Protocol", *checkers, "Verdict"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for r in results:
        cells = [
            _code(names[r.check.target]),
            escape_cell(r.check.protocol),
            *(
                _verdict(r.checkers[c].value, r.checkers[c] in (Verdict.FAIL, Verdict.UNVERIFIED))
                if c in r.checkers
                else "-"
                for c in checkers
            ),
            _verdict(r.verdict.value, r.verdict is not Verdict.PASS),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "### Problems", ""]
    problems = [_bullet(r, p) for r in results for p in sorted_problems(r.problems)]
    lines += problems or ["None."]
    baselined = [_bullet(r, p) for r in results for p in sorted_problems(r.baselined)]
    if baselined:
        lines += ["", "### Accepted by baseline", "", *baselined]
    notes = [f"- {escape_cell(n)}" for n in report.notes]
    notes += [f"- {_code(names[r.check.target])} ({escape_cell(r.check.protocol)}): {escape_cell(n)}" for r in results for n in r.notes]
    if notes:
        lines += ["", "### Notes", "", *notes]
    return "\n".join(lines) + "\n"
