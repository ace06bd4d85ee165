"""Combining the checkers' verdicts into the gate's, one per (class, protocol).

The rule, from strongest to weakest: any ``fail`` fails; otherwise any
``unverified`` is ``unverified`` (and fails the gate); otherwise a ``pass``
from at least one checker passes. A check that every checker ``skipped`` was
not verified by anything, so it is ``unverified``, never ``pass``.

One kind of ``unverified`` yields to another checker's ``pass``: a column
whose every problem is a construct that checker cannot model
(``Problem.unmodelled``: attrs' generated ``__init__``, a
``functools.cached_property``, a member a ``__getattr__`` gives an instance).
Another checker that does model it, and passes, decides; the column still
reads ``unverified``, with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from spec_protocols.gate._model import Check, CheckerOutcome, DiscoveredClass, Problem, Result, Verdict

__all__ = ["combine", "overall"]


def overall(verdicts: Sequence[Verdict]) -> Verdict:
    if Verdict.FAIL in verdicts:
        return Verdict.FAIL
    if Verdict.UNVERIFIED in verdicts:
        return Verdict.UNVERIFIED
    if Verdict.PASS in verdicts:
        return Verdict.PASS
    return Verdict.UNVERIFIED


def _unmodelled_only(checker: str, problems: Sequence[Problem]) -> bool:
    """Whether every problem ``checker`` has for a check is one it cannot model (and it has one)."""
    own = [p for p in problems if p.checker == checker]
    return bool(own) and all(p.unmodelled for p in own)


def combine(
    checks: Sequence[Check], outcomes: Sequence[CheckerOutcome], classes: Mapping[str, DiscoveredClass]
) -> tuple[Result, ...]:
    results: list[Result] = []
    for check in sorted(checks):
        per_checker: dict[str, Verdict] = {}
        problems: list[Problem] = []
        notes: list[str] = []
        cls = classes.get(check.target)
        for outcome in outcomes:
            verdict = outcome.verdicts.get(check, Verdict.UNVERIFIED)
            per_checker[outcome.checker] = verdict
            for p in outcome.problems.get(check, ()):
                # Point each problem at the source, where a reader (or a GitHub
                # annotation) can act on it: the member's own def (in the base
                # it is inherited from), else the class line.
                if p.file is None and cls is not None:
                    found = cls.definition(p.member)
                    file, line = (found.file, found.line) if found is not None else (cls.file, cls.line)
                    p = replace(p, file=str(file), line=line)
                problems.append(p)
            note = outcome.notes.get(check)
            if note is not None:
                # A skip reason is the checker's own; other notes (an abstract
                # base) say the same thing whichever checker noticed: once.
                text = f"{outcome.checker}: skipped: {note}" if verdict is Verdict.SKIPPED else note
                if text not in notes:
                    notes.append(text)
        combined = overall(list(per_checker.values()))
        if combined is Verdict.UNVERIFIED and Verdict.PASS in per_checker.values():
            if all(_unmodelled_only(name, problems) for name, v in per_checker.items() if v is Verdict.UNVERIFIED):
                combined = Verdict.PASS
        results.append(Result(check, combined, per_checker, tuple(problems), notes=tuple(notes)))
    return tuple(results)
