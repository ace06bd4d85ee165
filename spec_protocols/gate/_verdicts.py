"""Combining the checkers' verdicts into the gate's, one per (class, protocol).

The rule, from strongest to weakest: any ``fail`` fails; otherwise any
``unverified`` is ``unverified`` (and fails the gate); otherwise a ``pass``
from at least one checker passes. A check that every checker ``skipped`` was
not verified by anything, so it is ``unverified``, never ``pass``.

One kind of ``unverified`` yields to another checker's ``pass``: a column
whose every problem is a construct that checker cannot model
(``Problem.unmodelled``: attrs' generated ``__init__``, a
``functools.cached_property``, a member a ``__getattr__`` gives an instance,
the point where the replay stopped). Another checker that does model it, and
passes, decides; the column still reads ``unverified``, with its reason.

The instance decides what an instance can settle. A checker that builds the
class as sglang does and reads its members from the instance (the replay)
records what it saw there (``CheckerOutcome.evidence``: the member exists,
is of the kind sglang uses, takes sglang's call). Another checker's problem
that says the opposite of what was seen (``Problem.claim``: "missing",
"cannot take the call", a method for a value) is a blind spot of that
checker, which read the class, not the instance: it becomes ``unverified``
and ``unmodelled``, saying so. A problem of types is never settled so: the
static checkers decide types, and a replay's pass never hides one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from spec_protocols.gate._contract import ruled_out
from spec_protocols.gate._model import (
    Check,
    CheckerOutcome,
    ClassRole,
    DiscoveredClass,
    Problem,
    ProtocolName,
    Result,
    Verdict,
)

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


#: What the instance shows, as a reader is told where a problem yields to it.
_SEEN = {
    "exists": "has it",
    "kind": "has it as the kind sglang uses",
    "call": "takes sglang's call of it",
    "seen": "has it as sglang uses it",
}
#: The evidence that a member is never used for the registration at all.
_UNREACHED = "unreached"
#: The evidence that a setting of a server flag (``option=value``) is refused by the registration.
_REFUSED = "refused"
#: The evidence that settles a claim: a member read as Any is settled by all three.
_NEEDS = {"seen": ("exists", "kind")}


def _settled(outcomes: Sequence[CheckerOutcome]) -> list[CheckerOutcome]:
    """Each outcome with the problems that another checker's evidence from the
    instance disproves made blind spots, and the verdicts that rested on them
    only made ``unverified``."""
    seen: dict[Check, set[tuple[str, str]]] = {}
    by: dict[Check, list[str]] = {}
    for outcome in outcomes:
        for check, evidence in outcome.evidence.items():
            seen.setdefault(check, set()).update(evidence)
            by.setdefault(check, []).append(outcome.checker)
    if not seen:
        return list(outcomes)
    settled: list[CheckerOutcome] = []
    for outcome in outcomes:
        problems = dict(outcome.problems)
        verdicts = dict(outcome.verdicts)
        for check, found in outcome.problems.items():
            witnesses = [w for w in by.get(check, ()) if w != outcome.checker]
            if not witnesses:
                continue
            facts = seen[check]
            changed = tuple(_yielding(p, facts, witnesses[0]) for p in found)
            if changed != found:
                problems[check] = changed
                if verdicts.get(check) is Verdict.FAIL and all(p.unverified for p in changed):
                    verdicts[check] = Verdict.UNVERIFIED
        settled.append(replace(outcome, problems=problems, verdicts=verdicts))
    return settled


def _yielding(problem: Problem, facts: set[tuple[str, str]], witness: str) -> Problem:
    """``problem``, a blind spot where the instance shows the contrary of its
    claim; or, whatever it says, a problem of a member sglang never uses for
    the registration (its ``validate_server_args`` refuses every server that does)."""
    refused = {member for member, claim in facts if claim == _REFUSED}
    if not problem.unverified and ruled_out(problem.claim, refused):
        return _not_required(problem, witness, "those flags, so sglang never makes this use")
    if problem.member is not None and not problem.unverified and (problem.member, _UNREACHED) in facts:
        return _not_required(problem, witness, "every server that uses it, so sglang never does")
    if problem.claim is None or problem.member is None:
        return problem
    if problem.claim in _NEEDS:
        # A blind spot that the instance fills (the member there, of sglang's kind); still a blind spot of types.
        if not all((problem.member, need) in facts for need in _NEEDS[problem.claim]):
            return problem
    elif problem.unverified or (problem.member, problem.claim) not in facts:
        return problem
    words = f"{problem.message} (the {witness} checker shows that the instance sglang builds {_SEEN[problem.claim]}: what this checker read of the class does not decide)"
    return replace(problem, message=words, unverified=True, unmodelled=True)


def _not_required(problem: Problem, witness: str, why: str) -> Problem:
    """``problem`` on a use the registration rules out: a blind spot, saying so."""
    words = (
        f"{problem.message} (the {witness} checker shows that the registration's validate_server_args refuses "
        f"{why}: not required of this worker)"
    )
    return replace(problem, message=words, unverified=True, unmodelled=True)


def combine(
    checks: Sequence[Check], outcomes: Sequence[CheckerOutcome], classes: Mapping[str, DiscoveredClass]
) -> tuple[Result, ...]:
    results: list[Result] = []
    outcomes = _settled(outcomes)
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
        if cls is not None and cls.missing_bases:
            combined = Verdict.FAIL
            problems.append(Problem("gate", None, missing_base_words(cls.missing_bases), file=str(cls.file), line=cls.line))
        results.append(Result(check, combined, per_checker, tuple(problems), notes=tuple(notes)))
    return _through_injections(results, classes)


def missing_base_words(missing: Sequence[tuple[str, str]]) -> str:
    """The problem of a class whose base the sglang checked against does not have."""
    named = "; ".join(f"{base} (no module {module})" for base, module in missing)
    return (
        f"derives from {named}, which the sglang checked against does not have: importing the class raises "
        "ImportError there, so sglang can never build it; derive from what that release has (its own workers: "
        "spec-protocols check sglang.srt.speculative --sglang RELEASE)"
    )


def injected_fails_words(injected: Sequence[str]) -> str:
    """The problem of a class that injects a draft worker class (or expression) failing the factory call."""
    names = ", ".join(dict.fromkeys(injected))
    return (
        f"injects {names} as draft_worker_cls, which fails DraftWorkerFactory: build_draft_tp_worker's "
        "draft_worker_cls(...) call (speculative/draft_worker_common.py: build_draft_tp_worker) raises inside "
        "this worker's constructor (scheduler.py: maybe_init_draft_worker)"
    )


def _injector_of(target: str, classes: Mapping[str, DiscoveredClass]) -> str | None:
    """The checked class whose body holds an injection site (``module.Worker.__init__:draft_worker_cls``)."""
    scope = target.partition(":")[0]
    return max((d for d in classes if scope.startswith(f"{d}.")), key=len, default=None)


def _through_injections(results: Sequence[Result], classes: Mapping[str, DiscoveredClass]) -> tuple[Result, ...]:
    """A class whose own code injects a draft worker class that fails
    ``DraftWorkerFactory`` fails its ``SpecWorker`` check too (every check,
    when it has none): ``build_draft_tp_worker``'s ``draft_worker_cls(...)``
    call (speculative/draft_worker_common.py: build_draft_tp_worker) raises
    inside its constructor, which the scheduler runs (scheduler.py:
    maybe_init_draft_worker). The injected class's (or site's) own row says why."""
    failing: dict[str, list[str]] = {}
    for result in results:
        if result.check.protocol != ClassRole.INJECTED.protocol or result.verdict is not Verdict.FAIL:
            continue
        cls = classes.get(result.check.target)
        injectors = cls.injected_by if cls is not None else (_injector_of(result.check.target, classes),)
        for injector in injectors:
            if injector is not None:
                failing.setdefault(injector, []).append(result.check.target)
    if not failing:
        return tuple(results)
    checked = {(r.check.target, r.check.protocol) for r in results}
    out: list[Result] = []
    for result in results:
        target = result.check.target
        own = (target, ProtocolName.SPEC_WORKER) in checked
        if target not in failing or (own and result.check.protocol != ProtocolName.SPEC_WORKER):
            out.append(result)
            continue
        cls = classes[target]
        problem = Problem("gate", None, injected_fails_words(failing[target]), file=str(cls.file), line=cls.line)
        out.append(replace(result, verdict=Verdict.FAIL, problems=(*result.problems, problem)))
    return tuple(out)
