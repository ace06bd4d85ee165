"""A class whose own code injects a draft worker class failing the factory call fails too (``_verdicts.combine``).

``build_draft_tp_worker``'s ``draft_worker_cls(...)`` call raises inside the
injecting worker's constructor (speculative/draft_worker_common.py), which
the scheduler runs: the spec worker's check fails, with the gate's problem
naming what it injects; the injected class's (or site's) row says why.
"""

from __future__ import annotations

from pathlib import Path

from spec_protocols.gate._model import Check, CheckerOutcome, ClassRole, DiscoveredClass, ProtocolName, Verdict
from spec_protocols.gate._verdicts import combine

WORKER = DiscoveredClass("plugin", "Worker", Path("plugin.py"), 10, frozenset({ClassRole.SPEC_WORKER}))
FACTORY = ProtocolName.DRAFT_WORKER_FACTORY


def _draft(injected_by: tuple[str, ...]) -> DiscoveredClass:
    roles = frozenset({ClassRole.INJECTED, ClassRole.DRAFT_WORKER})
    return DiscoveredClass("plugin", "Draft", Path("plugin.py"), 3, roles, injected_by=injected_by)


def _run(draft_factory: Verdict, draft: DiscoveredClass, *extra: tuple[Check, Verdict]) -> dict[Check, Verdict]:
    verdicts = {Check("plugin.Worker", ProtocolName.SPEC_WORKER): Verdict.PASS, Check("plugin.Draft", FACTORY): draft_factory}
    verdicts.update(extra)
    outcome = CheckerOutcome("mypy", verdicts, {})
    classes = {c.dotted: c for c in (WORKER, draft)}
    return {r.check: r.verdict for r in combine(sorted(verdicts), [outcome], classes)}


def test_a_worker_injecting_a_failing_draft_class_fails() -> None:
    verdicts = _run(Verdict.FAIL, _draft(("plugin.Worker",)))
    assert verdicts[Check("plugin.Worker", ProtocolName.SPEC_WORKER)] is Verdict.FAIL
    assert verdicts[Check("plugin.Draft", FACTORY)] is Verdict.FAIL


def test_a_worker_injecting_a_working_draft_class_passes() -> None:
    verdicts = _run(Verdict.PASS, _draft(("plugin.Worker",)))
    assert verdicts[Check("plugin.Worker", ProtocolName.SPEC_WORKER)] is Verdict.PASS


def test_a_failing_class_another_code_injects_leaves_the_worker_alone() -> None:
    verdicts = _run(Verdict.FAIL, _draft(()))
    assert verdicts[Check("plugin.Worker", ProtocolName.SPEC_WORKER)] is Verdict.PASS


def test_a_failing_injection_site_in_the_worker_fails_it() -> None:
    site = (Check("plugin.Worker.__init__:draft_worker_cls", FACTORY), Verdict.FAIL)
    verdicts = _run(Verdict.PASS, _draft(()), site)
    assert verdicts[Check("plugin.Worker", ProtocolName.SPEC_WORKER)] is Verdict.FAIL


def test_a_class_whose_base_the_release_lacks_fails_whatever_the_checkers_saw() -> None:
    """Its base is unresolved, so each static checker sees Any (unverified);
    the class cannot be imported on that release, so it fails, saying why."""
    gone = (("sglang.srt.speculative.eagle_worker.EAGLEWorker", "sglang.srt.speculative.eagle_worker"),)
    old = DiscoveredClass("plugin", "Old", Path("plugin.py"), 4, frozenset({ClassRole.SPEC_WORKER}), missing_bases=gone)
    check = Check("plugin.Old", ProtocolName.SPEC_WORKER)
    (result,) = combine([check], [CheckerOutcome("mypy", {check: Verdict.UNVERIFIED}, {})], {old.dotted: old})
    assert result.verdict is Verdict.FAIL
    assert result.checkers == {"mypy": Verdict.UNVERIFIED}
    (problem,) = [p for p in result.problems if p.checker == "gate"]
    assert "no module sglang.srt.speculative.eagle_worker" in problem.message
    assert (problem.file, problem.line) == ("plugin.py", 4)
