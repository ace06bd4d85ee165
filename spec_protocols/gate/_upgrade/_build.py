"""Building the upgrade plan: two releases' contracts and terms, and the gate's report on each.

What changed is read from the two releases' own terms (never a list kept by
hand; :mod:`~spec_protocols.gate._upgrade._steps`): the keywords the
scheduler constructs a spec worker with (``Scheduler.maybe_init_draft_worker``),
the members each release requires, how it calls them, what
``BaseSpecWorker``'s defaults need of the draft worker, the keywords
``build_draft_tp_worker`` passes ``draft_worker_cls``, the hooks sglang finds
by name. Each change becomes a step for the classes of TARGET it concerns;
the gate's report on B says which of them must change: a problem on B about
the step's member, in a check of the step's protocol, is the step's. A
problem the report on A has too (the same words, line numbers aside) is not
the upgrade's: the class already failed there, and it stays in
:attr:`UpgradePlan.remaining`, with every problem no step accounts for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spec_protocols.gate._model import Check, DiscoveredClass, GateReport, Problem, Result, Verdict
from spec_protocols.gate._upgrade._classes import instance_attributes
from spec_protocols.gate._upgrade._plan import ClassStep, FailingCheck, PlanProblem, ReleaseSide, Step, UpgradePlan
from spec_protocols.gate._upgrade._steps import INJECTION, Sides, drafts
from spec_protocols.gate._verdicts import injected_fails_words

__all__ = ["ReleaseSide", "build_plan"]

_INJECTED_HEAD, _, _INJECTED_TAIL = injected_fails_words(["\0"]).partition("\0")


def _line_free(message: str) -> str:
    """A message without its line numbers: the same problem on A and B reads alike."""
    return re.sub(r"\blines? \d+(-\d+)?\b|:\d+\b", "", message)


def _member_of(problem: Problem) -> str:
    """What ``problem`` is about, for a step to account for it: its member,
    or :data:`INJECTION` for the gate's problem on a class that injects a
    draft worker class failing ``DraftWorkerFactory``."""
    if problem.member is None and problem.checker == "gate":
        if problem.message.startswith(_INJECTED_HEAD) and problem.message.endswith(_INJECTED_TAIL):
            return INJECTION
    return problem.member or ""


def _plan_problem(problem: Problem) -> PlanProblem:
    return PlanProblem(problem.checker, problem.member or "", problem.message, problem.line)


class _Pool:
    """B's problems, each accounted for by at most one step; those A had too are never a step's."""

    def __init__(self, after: GateReport, before: GateReport) -> None:
        self.results = sorted(after.results, key=lambda r: (r.check.target, r.check.protocol))
        on_a = {
            (r.check, p.checker, p.member, _line_free(p.message)) for r in before.results for p in r.problems
        }
        self.free: dict[Check, list[Problem]] = {
            r.check: [
                p
                for p in r.problems
                if not p.unverified and (r.check, p.checker, p.member, _line_free(p.message)) not in on_a
            ]
            for r in self.results
        }
        self.claimed: set[tuple[Check, Problem]] = set()

    def claim(self, check: Check, members: frozenset[str]) -> tuple[Problem, ...]:
        taken = tuple(p for p in self.free.get(check, ()) if _member_of(p) in members)
        self.free[check] = [p for p in self.free.get(check, ()) if p not in taken]
        self.claimed.update((check, p) for p in taken)
        return taken

    def remaining(self) -> tuple[FailingCheck, ...]:
        """Every check that fails on B with a problem no step took (or none at all to take)."""
        found: list[FailingCheck] = []
        for result in self.results:
            if result.verdict is Verdict.PASS:
                continue
            left = [p for p in result.problems if (result.check, p) not in self.claimed]
            if left or not any(check == result.check for check, _ in self.claimed):
                found.append(_failing(result, left))
        return tuple(found)


def _failing(result: Result, problems: Sequence[Problem]) -> FailingCheck:
    return FailingCheck(
        result.check.target, result.check.protocol, result.verdict.value, tuple(_plan_problem(p) for p in problems)
    )


def build_plan(before: ReleaseSide, after: ReleaseSide, classes: Sequence[DiscoveredClass] = ()) -> UpgradePlan:
    """What TARGET must change to pass on ``after``'s release, having been checked on ``before``'s.

    ``classes``: what discovery found of TARGET on B (which members each class
    defines, which ``BaseSpecWorker`` defaults it keeps; what its methods store
    on ``self`` is read from its file); without it, a step about a member a
    class may define concerns no class, and a kept default's needs are not named."""
    sides = Sides(before, after, {c.dotted: c for c in classes}, {c.dotted: instance_attributes(c) for c in classes})
    pool = _Pool(after.report, before.report)
    steps: list[Step] = []
    unconcerned: list[str] = []
    for draft in drafts(sides):
        class_steps: list[ClassStep] = []
        for result in pool.results:
            check = result.check
            members = draft.claims.get(check.protocol)
            if members is None or (draft.concerned is not None and check.target not in draft.concerned):
                continue
            taken = pool.claim(check, members)
            note = draft.concerned.get(check.target, "") if draft.concerned is not None else ""
            class_steps.append(
                ClassStep(check.target, check.protocol, bool(taken), tuple(_plan_problem(p) for p in taken), note)
            )
        if class_steps:
            steps.append(
                Step(draft.kind, draft.subject, draft.change, draft.action, draft.site, draft.expected, tuple(class_steps))
            )
        else:
            unconcerned.append(f"{draft.subject}: {draft.change}")
    return UpgradePlan(
        source=before.release,
        destination=after.release,
        targets=after.report.targets,
        checkers=after.report.checkers,
        failing_on_source=tuple(
            _failing(r, r.problems)
            for r in sorted(before.report.results, key=lambda r: (r.check.target, r.check.protocol))
            if r.verdict is not Verdict.PASS
        ),
        steps=tuple(steps),
        remaining=pool.remaining(),
        passes_on_destination=after.report.ok,
        unconcerned=tuple(unconcerned),
    )
