"""The ``--format text`` report: a table for a terminal, readable in 80 columns.

    Class         Protocol    runtime  mypy  pyright  Verdict
    ------------  ----------  -------  ----  -------  -------
    MyAlgoWorker  SpecWorker  fail     fail  fail     fail
      myalgo.MyAlgoWorker
      pyright (and mypy, runtime): forward_batch_generation (/src/myalgo.py:44):
        signature does not match: Missing keyword parameter "on_publish";
        expected SpecWorker.forward_batch_generation(self, batch:
        ScheduleBatch, /, *, on_publish: PublishCallback | None = ...) ->
        GenerationBatchResult; got ...
        change: accept on_publish
    EAGLEWorker   SpecWorker  pass     pass  pass     pass

    2 checked: 1 pass, 1 fail, 0 unverified in 4.1s

One row per (class, protocol), one column per checker. Under every row that
fails the gate, the class's full dotted path and each distinct problem once,
most useful first (:func:`~spec_protocols.gate._reports._order.by_lead`):
the problems the checkers report at one member and place are one, in the
words of the checker that leads, naming the others; under it, where the
gate can say it, what to change (``Problem.change``). Past :data:`SHOWN`
problems the rest are counted, with how to see them (``--format json``
lists every one). A message is wrapped at spaces onto indented lines, never
cut: a reader acts on the expected and the got signature, so neither may
lose its end to an ellipsis.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from spec_protocols.gate._model import GateReport, Problem, Result, Verdict
from spec_protocols.gate._reports._order import by_lead, ordered_checkers, sorted_results
from spec_protocols.gate._reports._phrasing import SEE_ALL, elide, paragraph, short_names, summary_line

__all__ = ["render_text"]

#: The report's width: the table, the problem lines and the summary fit in it.
WIDTH = 80

_SEP = "  "
_INDENT = "  "
#: Where a wrapped message continues: deeper than its first line, so that the
#: next problem or row is easy to find.
_CONTINUED = "    "
_MIN_CLASS_WIDTH = 12


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` as a problem's or a note's paragraph (see :func:`paragraph`)."""
    return paragraph(text, width, indent=_INDENT, continued=_CONTINUED)


def _run_line(text: str, width: int) -> list[str]:
    """A line about the whole run, at the margin, continued below it when long."""
    return textwrap.wrap(text, width, subsequent_indent=_CONTINUED, break_long_words=False, break_on_hyphens=False)


#: The distinct problems shown under a row; the others are counted, with
#: the way to see them.
SHOWN = 5



def _distinct(result: Result, lead: tuple[str, ...]) -> list[tuple[Problem, tuple[str, ...]]]:
    """Each distinct problem once, most useful first, with the checkers that
    report it: what the checkers report at one member and place is one
    problem (mypy's and pyright's words for a renamed ``gpu_id``), shown in
    the words of the checker that leads there (:func:`by_lead`), naming the
    others; where that checker says several things there, each is shown."""
    groups: dict[tuple[str | None, str | None, int | None, bool], list[Problem]] = {}
    for problem in by_lead(result.problems, lead):
        groups.setdefault((problem.member, problem.file, problem.line, problem.unverified), []).append(problem)
    entries: list[tuple[Problem, tuple[str, ...]]] = []
    for problems in groups.values():
        first, *rest = problems
        own = [p for p in rest if p.checker == first.checker]
        others = tuple(dict.fromkeys(p.checker for p in rest if p.checker != first.checker))
        entries.append((first, (first.checker, *others)))
        entries.extend((p, (p.checker,)) for p in own)
    return entries


def _problem_lines(result: Result, width: int, lead: tuple[str, ...]) -> list[str]:
    entries = _distinct(result, lead)
    lines: list[str] = []
    for problem, checkers in entries[:SHOWN]:
        where = ""
        if problem.file is not None:
            where = f" ({problem.file}:{problem.line})" if problem.line is not None else f" ({problem.file})"
        others = [c for c in checkers if c != problem.checker]
        who = f"{problem.checker} (and {', '.join(others)})" if others else problem.checker
        head = f"{who}: {problem.member}{where}" if problem.member else f"{who}{where}"
        lines += _wrapped(f"{head}: {problem.message}", width)
        if problem.change:
            lines += paragraph(f"change: {problem.change}", width, indent=_CONTINUED, continued=_CONTINUED + "  ")
    return _with_more(lines, len(entries) - SHOWN, width)


def _with_more(lines: list[str], more: int, width: int) -> list[str]:
    """``(+N more)`` after the last line, or on its own when it does not fit: never split."""
    if more <= 0 or not lines:
        return lines
    hint = f"(+{more} more; {SEE_ALL})"
    if len(lines[-1]) + 1 + len(hint) <= width:
        return [*lines[:-1], f"{lines[-1]} {hint}"]
    return [*lines, _CONTINUED + hint]


def render_text(
    report: GateReport,
    *,
    include_timings: bool = True,
    width: int = WIDTH,
) -> str:
    """Render *report* as the text table (see the module docstring).

    Every line is at most *width* characters (the class column is elided to
    fit; the full path is printed under each failing row; a problem wraps),
    except where one word (a long path) is longer than a line. No colours:
    CI logs and pipes would show escape codes as garbage.
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
            lines.extend(_problem_lines(result, width, report.lead))
        notes = list(result.notes)
        if notes and (result.verdict is Verdict.PASS or not result.problems):
            # Why a checker skipped (the import error), or that the class is
            # an abstract base: "skipped" or "pass" alone does not tell a
            # reader whether to worry.
            lines.extend(_with_more(_wrapped(f"note: {notes[0]}", width), len(notes) - 1, width))
        elif notes:
            # Under a failing row's problems, the notes that are not a checker's
            # skip: what its role asks to change (a registration's spec_class).
            for note in (n for n in notes if ": skipped: " not in n):
                lines.extend(_wrapped(f"note: {note}", width))
    lines.append("")
    # Whole, never elided (wrapped at spaces): which code and which sglang a
    # verdict is about is what a reader of a CI log checks first.
    if report.targets:
        lines.extend(_run_line(f"checked: {' '.join(report.targets)}", width))
    if report.sglang is not None:
        lines.extend(_run_line(f"against {report.sglang.describe()}", width))
    for note in report.notes:
        lines.append(f"note: {note}")
    lines.append(elide(summary_line(report, include_timings=include_timings), width, keep="start"))
    return "\n".join(lines) + "\n"
