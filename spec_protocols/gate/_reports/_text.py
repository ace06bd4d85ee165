"""The ``--format text`` report: a table for a terminal, readable in 80 columns.

    Class         Protocol    runtime  mypy  pyright  Verdict
    ------------  ----------  -------  ----  -------  -------
    DFlashWorker  SpecWorker  skipped  fail  fail     fail
      sglang.srt.speculative.dflash_worker.DFlashWorker
      mypy: forward_batch_generation: Signature of "forward_batch_gener... (+2 more)
    EAGLEWorker   SpecWorker  pass     pass  pass     pass

    2 checked: 1 pass, 1 fail, 0 unverified in 4.1s

One row per (class, protocol), one column per checker. Under every row that
fails the gate, the class's full dotted path and its most readable problem, with the
number of further problems; ``--format json`` lists them all.
"""

from __future__ import annotations

from collections.abc import Iterable

from spec_protocols.gate._model import GateReport, Result, Verdict
from spec_protocols.gate._reports._order import ordered_checkers, sorted_problems, sorted_results
from spec_protocols.gate._reports._phrasing import elide, short_names, summary_line

__all__ = ["render_text"]

#: The report's width: the table, the problem lines and the summary fit in it.
WIDTH = 80

_SEP = "  "
_INDENT = "  "
_MIN_CLASS_WIDTH = 12



# Which checker's problem the one-line summary shows first: the runtime
# checker's messages name the parameter in plain words, pyright's innermost
# line comes next, mypy's one-liners quote whole signatures.
_READABILITY = {"runtime": 0, "pyright": 1, "mypy": 2}


def _problem_line(result: Result, width: int) -> str | None:
    problems = sorted_problems(result.problems)
    if not problems:
        return None
    first = min(problems, key=lambda p: _READABILITY.get(p.checker, len(_READABILITY)))
    text = f"{first.checker}: {first.member}: {first.message}" if first.member else f"{first.checker}: {first.message}"
    # A message may span lines (a checker's note); the table keeps one line.
    text = " ".join(text.split())
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return _INDENT + elide(text, width - len(_INDENT) - len(more), keep="start") + more


def render_text(
    report: GateReport,
    *,
    include_timings: bool = True,
    width: int = WIDTH,
) -> str:
    """Render *report* as the text table (see the module docstring).

    Every line is at most *width* characters (the class column is elided to
    fit; the full path is printed under each failing row). No colours: CI logs
    and pipes would show escape codes as garbage.
    """
    results = sorted_results(report)
    checkers = ordered_checkers(
        [*report.checkers, *(name for r in results for name in r.checkers)]
    )
    names = short_names(r.check.target for r in results)

    def col_width(title: str, values: Iterable[str]) -> int:
        return max([len(title), *(len(v) for v in values)])

    protocol_w = col_width("Protocol", (r.check.protocol for r in results))
    checker_ws = [
        col_width(c, (r.checkers[c].value for r in results if c in r.checkers)) for c in checkers
    ]
    verdict_w = col_width("Verdict", (r.verdict.value for r in results))
    fixed = protocol_w + sum(checker_ws) + verdict_w + len(_SEP) * (len(checkers) + 2)
    class_w = max(_MIN_CLASS_WIDTH, min(width - fixed, col_width("Class", names.values())))

    def row(cells: list[tuple[str, int]]) -> str:
        return _SEP.join(value.ljust(w) for value, w in cells).rstrip()

    widths = [class_w, protocol_w, *checker_ws, verdict_w]
    lines = [
        row(list(zip(["Class", "Protocol", *checkers, "Verdict"], widths, strict=True))),
        row([("-" * w, w) for w in widths]),
    ]
    for result in results:
        values = [
            elide(names[result.check.target], class_w),
            result.check.protocol,
            # "-": this checker did not run for this check (e.g. --checker mypy).
            *(result.checkers[c].value if c in result.checkers else "-" for c in checkers),
            result.verdict.value,
        ]
        lines.append(row(list(zip(values, widths, strict=True))))
        if result.verdict is not Verdict.PASS:
            lines.append(_INDENT + elide(result.check.target, width - len(_INDENT), keep="end"))
            problem = _problem_line(result, width)
            if problem is not None:
                lines.append(problem)
        notes = list(result.notes)
        if notes and (result.verdict is Verdict.PASS or not result.problems):
            # Why a checker skipped (the import error), or that the class is
            # an abstract base: "skipped" or "pass" alone does not tell a
            # reader whether to worry.
            more = f" (+{len(notes) - 1} more)" if len(notes) > 1 else ""
            text = " ".join(f"note: {notes[0]}".split())
            lines.append(_INDENT + elide(text, width - len(_INDENT) - len(more), keep="start") + more)
    lines.append("")
    if report.sglang is not None:
        lines.append(elide(f"against {report.sglang.describe()}", width, keep="start"))
    for note in report.notes:
        lines.append(f"note: {note}")
    lines.append(elide(summary_line(report, include_timings=include_timings), width, keep="start"))
    return "\n".join(lines) + "\n"
