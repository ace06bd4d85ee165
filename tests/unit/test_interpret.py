"""Reading checker output into verdicts, on synthetic diagnostics (no checker runs).

The harness tags every line it writes with the class, check and member it
belongs to (spec_protocols/gate/_harness/_lines.py); ``interpret`` turns one
checker's diagnostics into verdicts from those tags, and ``combine`` merges
the checkers. These tests put diagnostics on chosen lines and assert what a
reader of the report would be told, including every way a verdict could
become vacuous.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from spec_protocols.gate._checkers import dialect_of
from spec_protocols.gate._checkers._interpret import Diagnostic, interpret
from spec_protocols.gate._harness._lines import Harness, LineKind, build_harness
from spec_protocols.gate._model import (
    ABSTRACT_BASE_NOTE,
    Check,
    CheckerOutcome,
    ClassRole,
    DiscoveredClass,
    InjectionSite,
    MemberDefinition,
    Problem,
    Verdict,
)
from spec_protocols.gate._harness._sites import SiteShadow
from spec_protocols.gate._verdicts import combine, overall

GOOD = "plug.mod.Good"
OTHER = "plug.mod.Other"


def _cls(qualname: str, *roles: ClassRole, may_be_abstract: bool = False) -> DiscoveredClass:
    return DiscoveredClass(
        "plug.mod",
        qualname,
        Path("/plug/mod.py"),
        3,
        frozenset(roles or {ClassRole.SPEC_WORKER}),
        may_be_abstract=may_be_abstract,
    )


def _lines(harness: Harness, target: str, kind: LineKind, member: str | None = None) -> list[int]:
    return [
        n
        for n, t in sorted(harness.tags.items())
        if t.target == target and t.kind is kind and (member is None or t.member == member)
    ]


def _fire(harness: Harness, target: str, kind: LineKind, member: str | None = None, message: str = "error") -> list[Diagnostic]:
    return [Diagnostic(n, message) for n in _lines(harness, target, kind, member)]


def _healthy(harness: Harness, *targets: str) -> list[Diagnostic]:
    """What a checker says about conforming classes: every canary errors."""
    found: list[Diagnostic] = []
    for target in targets:
        for kind in (LineKind.CANARY_CLASS, LineKind.CANARY_INSTANCE, LineKind.MEMBER_ANY, LineKind.MEMBER_GRADUAL):
            found += _fire(harness, target, kind)
    return found


@pytest.fixture(scope="module")
def harness() -> Harness:
    return build_harness([_cls("Good"), _cls("Other")])


def test_a_conforming_class_passes(harness: Harness) -> None:
    outcome = interpret("mypy", dialect_of("mypy"), harness, _healthy(harness, GOOD, OTHER))
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.PASS
    assert outcome.problems[Check(GOOD, "SpecWorker")] == ()


def test_a_silent_class_canary_is_unverified_never_pass(harness: Harness) -> None:
    diagnostics = [d for d in _healthy(harness, GOOD, OTHER) if d.line not in _lines(harness, GOOD, LineKind.CANARY_CLASS)]
    outcome = interpret("pyright", dialect_of("pyright"), harness, diagnostics)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.UNVERIFIED
    (problem,) = outcome.problems[Check(GOOD, "SpecWorker")]
    assert problem.unverified and "Any/Unknown" in problem.message
    # Isolation: the other class keeps its own verdict.
    assert outcome.verdicts[Check(OTHER, "SpecWorker")] is Verdict.PASS


def test_an_import_error_is_unverified_for_that_class_only(harness: Harness) -> None:
    diagnostics = _healthy(harness, GOOD, OTHER) + _fire(harness, GOOD, LineKind.IMPORT, message='Module "plug.mod" has no attribute "Good"')
    outcome = interpret("mypy", dialect_of("mypy"), harness, diagnostics)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.UNVERIFIED
    assert "could not import it" in outcome.problems[Check(GOOD, "SpecWorker")][0].message
    assert outcome.verdicts[Check(OTHER, "SpecWorker")] is Verdict.PASS


def test_an_error_outside_every_class_makes_everything_unverified(harness: Harness) -> None:
    outcome = interpret("mypy", dialect_of("mypy"), harness, [*_healthy(harness, GOOD, OTHER), Diagnostic(3, "Cannot find spec_protocols")])
    assert set(outcome.verdicts.values()) == {Verdict.UNVERIFIED}


def test_a_member_error_fails_and_names_the_member(harness: Harness) -> None:
    diagnostics = _healthy(harness, GOOD, OTHER) + _fire(
        harness, GOOD, LineKind.MEMBER_SIGNATURE, "forward_batch_generation", "Missing keyword parameter"
    )
    outcome = interpret("pyright", dialect_of("pyright"), harness, diagnostics)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.FAIL
    assert [p.member for p in outcome.problems[Check(GOOD, "SpecWorker")]] == ["forward_batch_generation"]


@pytest.mark.parametrize(("kind", "words"), [(LineKind.MEMBER_ANY, "as Any"), (LineKind.MEMBER_GRADUAL, "(...) -> Any")])
def test_a_silent_member_canary_makes_that_member_unverified(harness: Harness, kind: LineKind, words: str) -> None:
    silenced = set(_lines(harness, GOOD, kind, "forward_batch_generation"))
    assert silenced
    diagnostics = [d for d in _healthy(harness, GOOD, OTHER) if d.line not in silenced]
    outcome = interpret("mypy", dialect_of("mypy"), harness, diagnostics)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.UNVERIFIED
    (problem,) = outcome.problems[Check(GOOD, "SpecWorker")]
    assert problem.member == "forward_batch_generation" and problem.unverified and words in problem.message


def test_a_failing_member_is_not_also_reported_blind(harness: Harness) -> None:
    silenced = set(_lines(harness, GOOD, LineKind.MEMBER_GRADUAL, "forward_batch_generation"))
    diagnostics = [d for d in _healthy(harness, GOOD, OTHER) if d.line not in silenced]
    diagnostics += _fire(harness, GOOD, LineKind.MEMBER_SIGNATURE, "forward_batch_generation", "bad")
    outcome = interpret("mypy", dialect_of("mypy"), harness, diagnostics)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.FAIL
    assert [p.unverified for p in outcome.problems[Check(GOOD, "SpecWorker")]] == [False]


def test_getattr_class_object_line_decides_only_with_getattr(harness: Harness) -> None:
    missing = _fire(harness, GOOD, LineKind.MEMBER, "forward_batch_generation", '"type[Good]" has no attribute')
    # Without __getattr__ (the instance canary fires), the class-object line
    # is not authoritative: an attribute set in __init__ is legitimately absent.
    outcome = interpret("mypy", dialect_of("mypy"), harness, _healthy(harness, GOOD, OTHER) + missing)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.PASS
    # With __getattr__ (the instance canary is silent), it is the only evidence.
    without_instance_canary = [
        d for d in _healthy(harness, GOOD, OTHER) if d.line not in _lines(harness, GOOD, LineKind.CANARY_INSTANCE)
    ]
    outcome = interpret("mypy", dialect_of("mypy"), harness, without_instance_canary + missing)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.FAIL


def test_constructor_errors_fail_as_init(harness: Harness) -> None:
    diagnostics = _healthy(harness, GOOD, OTHER) + _fire(
        harness, GOOD, LineKind.CONSTRUCTOR, "__init__", 'Unexpected keyword argument "nccl_port"'
    )
    outcome = interpret("mypy", dialect_of("mypy"), harness, diagnostics)
    assert outcome.verdicts[Check(GOOD, "SpecWorker")] is Verdict.FAIL
    assert {p.member for p in outcome.problems[Check(GOOD, "SpecWorker")]} == {"__init__"}


def test_abstract_is_a_failure_unless_the_class_may_be_abstract() -> None:
    abstract = 'Cannot instantiate abstract class "X" with abstract attribute "forward_batch_generation"'
    for may_be_abstract, verdict in ((False, Verdict.FAIL), (True, Verdict.PASS)):
        harness = build_harness([_cls("Good", may_be_abstract=may_be_abstract)])
        diagnostics = _healthy(harness, GOOD) + [
            Diagnostic(n, abstract, "abstract") for n in _lines(harness, GOOD, LineKind.CONSTRUCTOR)[-1:]
        ]
        outcome = interpret("mypy", dialect_of("mypy"), harness, diagnostics)
        assert outcome.verdicts[Check(GOOD, "SpecWorker")] is verdict
        if may_be_abstract:
            assert outcome.notes[Check(GOOD, "SpecWorker")] == ABSTRACT_BASE_NOTE
        else:
            assert "forward_batch_generation" in outcome.problems[Check(GOOD, "SpecWorker")][0].message


#: SpecWorker.forward_batch_generation as the protocol writes it: the "expected" half.
FORWARD = (
    "SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /, *, on_publish: PublishCallback | None = ...)"
    " -> GenerationBatchResult"
)


@pytest.mark.parametrize(
    ("checker", "said", "code"),
    [
        ("mypy", 'Cannot instantiate abstract class "Good" with abstract attributes "forward_batch_generation" and "tree_width"', "abstract"),
        (
            "pyright",
            'Cannot instantiate abstract class "Good"\n\xa0\xa0"Base.forward_batch_generation" is not implemented\n'
            '\xa0\xa0"Good.tree_width" is not implemented',
            "reportAbstractUsage",
        ),
        (
            "ty",
            "Cannot instantiate `Good` with unimplemented abstract methods `forward_batch_generation` and `tree_width`",
            "abstract-class-instantiation",
        ),
    ],
    ids=["mypy", "pyright", "ty"],
)
def test_an_abstract_class_names_each_member_to_write_with_the_signature_sglang_calls(
    harness: Harness, checker: str, said: str, code: str
) -> None:
    # One of the two is a protocol member (its signature is the protocol's), one the plugin's own.
    (line,) = _lines(harness, GOOD, LineKind.CONSTRUCTOR)[-1:]
    outcome = interpret(checker, dialect_of(checker), harness, [*_healthy(harness, GOOD, OTHER), Diagnostic(line, said, code)])
    (problem,) = outcome.problems[Check(GOOD, "SpecWorker")]
    assert (problem.member, problem.line) == ("__init__", 3)
    assert problem.message == (
        f"abstract class: sglang cannot instantiate it; implement forward_batch_generation, tree_width; expected {FORWARD}"
    )


def test_an_abstract_class_says_how_many_members_the_checker_left_unnamed(harness: Harness) -> None:
    (line,) = _lines(harness, GOOD, LineKind.CONSTRUCTOR)[-1:]
    said = 'Cannot instantiate abstract class "Good" with abstract attributes "a", "b", ... and "g" (4 methods suppressed)'
    outcome = interpret("mypy", dialect_of("mypy"), harness, [*_healthy(harness, GOOD, OTHER), Diagnostic(line, said, "abstract")])
    (problem,) = outcome.problems[Check(GOOD, "SpecWorker")]
    assert problem.message == "abstract class: sglang cannot instantiate it; implement a, b, g and 4 more"
    said = "Cannot instantiate `Good` with 7 unimplemented abstract methods, including `a`, `b` and `c`"
    outcome = interpret("ty", dialect_of("ty"), harness, [*_healthy(harness, GOOD, OTHER), Diagnostic(line, said, "abstract-class-instantiation")])
    (problem,) = outcome.problems[Check(GOOD, "SpecWorker")]
    assert problem.message == "abstract class: sglang cannot instantiate it; implement a, b, c and 4 more"


def test_only_abstract_errors_count_on_a_draft_workers_bare_call() -> None:
    harness = build_harness([_cls("Draft", ClassRole.DRAFT_WORKER)])
    target = "plug.mod.Draft"
    (call,) = _lines(harness, target, LineKind.ABSTRACT)[-1:]
    arguments = interpret("pyright", dialect_of("pyright"), harness, [*_healthy(harness, target), Diagnostic(call, 'Argument missing for parameter "x"')])
    assert arguments.verdicts[Check(target, "DraftWorker")] is Verdict.PASS
    abstract = interpret("pyright", dialect_of("pyright"), harness, [*_healthy(harness, target), Diagnostic(call, 'Cannot instantiate abstract class "Draft"', "reportAbstractUsage")]
    )
    assert abstract.verdicts[Check(target, "DraftWorker")] is Verdict.FAIL


def _site_setup() -> tuple[Harness, SiteShadow, Check]:
    site = InjectionSite("plug.mod.W.__init__:draft_worker_cls", "plug.mod", Path("/plug/mod.py"), 9, 4, 9, 20, "self.cls")
    harness = build_harness([], site_modules={"plug.mod": [site.target]})
    shadow = SiteShadow(Path("/shadow"), "helper", {"plug.mod": Path("/shadow/plug/mod.py")}, {1: site}, {})
    return harness, shadow, Check(site.target, "DraftWorkerFactory")


def test_sites_pass_fail_or_unverified_from_their_helpers() -> None:
    harness, shadow, check = _site_setup()
    canary = Diagnostic(9, 'Argument 1 to "spec_protocols_site_1_canary" has incompatible type', site=(1, True))
    failure = Diagnostic(9, 'Unexpected keyword argument "gpu_id" for "Bad"', site=(1, False))
    assert interpret("mypy", dialect_of("mypy"), harness, [canary], shadow=shadow).verdicts[check] is Verdict.PASS
    failed = interpret("mypy", dialect_of("mypy"), harness, [canary, failure], shadow=shadow)
    assert failed.verdicts[check] is Verdict.FAIL
    assert failed.problems[check][0].message == (
        'build_draft_tp_worker\'s call of draft_worker_cls=self.cls fails: Unexpected keyword argument "gpu_id" for "Bad"'
    )
    assert failed.problems[check][0].line == 9
    silent = interpret("mypy", dialect_of("mypy"), harness, [], shadow=shadow)
    assert silent.verdicts[check] is Verdict.UNVERIFIED
    assert "as Any" in silent.problems[check][0].message


def test_combine_fail_beats_unverified_beats_pass_and_all_skipped_is_unverified() -> None:
    assert overall([Verdict.PASS, Verdict.UNVERIFIED, Verdict.FAIL]) is Verdict.FAIL
    assert overall([Verdict.PASS, Verdict.UNVERIFIED]) is Verdict.UNVERIFIED
    assert overall([Verdict.SKIPPED, Verdict.PASS]) is Verdict.PASS
    assert overall([Verdict.SKIPPED, Verdict.SKIPPED]) is Verdict.UNVERIFIED
    check = Check(GOOD, "SpecWorker")
    runtime = CheckerOutcome("runtime", {check: Verdict.SKIPPED}, {check: ()}, notes={check: "cannot import plug.mod"})
    mypy = CheckerOutcome("mypy", {check: Verdict.PASS}, {check: ()}, notes={check: ABSTRACT_BASE_NOTE})
    pyright = CheckerOutcome("pyright", {check: Verdict.PASS}, {check: ()}, notes={check: ABSTRACT_BASE_NOTE})
    (result,) = combine([check], [runtime, mypy, pyright], {GOOD: _cls("Good")})
    assert result.verdict is Verdict.PASS
    # The skip reason is a note, never a problem (so never in a baseline); an
    # identical note from two checkers appears once.
    assert result.problems == ()
    assert result.notes == ("runtime: skipped: cannot import plug.mod", ABSTRACT_BASE_NOTE)


# -- messages an author can act on ------------------------------------------------

_OWN_FORWARD = MemberDefinition(
    "forward_batch_generation",
    GOOD,
    Path("/plug/mod.py"),
    12,
    "Good.forward_batch_generation(self, batch: ScheduleBatch) -> GenerationBatchResult",
)
_INHERITED_INIT = MemberDefinition("__init__", "plug.base.Base", Path("/plug/base.py"), 40, "Base.__init__(self) -> None")
_PYRIGHT_SIGNATURE = (
    'Type "(batch: ScheduleBatch) -> GenerationBatchResult" is not assignable to declared type '
    '"_SpecWorker__forward_batch_generation"\n'
    '  Type "(batch: ScheduleBatch) -> GenerationBatchResult" is not assignable to type '
    '"(batch: ScheduleBatch, /, *, on_publish: PublishCallback | None = ...) -> GenerationBatchResult"\n'
    '    Missing keyword parameter "on_publish"'
)
_MYPY_SIGNATURE = (
    'Incompatible types in assignment (expression has type "Callable[[ScheduleBatch], GenerationBatchResult]", '
    'variable has type "_SpecWorker__forward_batch_generation")'
)


@pytest.fixture(scope="module")
def located() -> Harness:
    good = replace(_cls("Good"), members=(_INHERITED_INIT, _OWN_FORWARD))
    return build_harness([good, _cls("Other")])


@pytest.mark.parametrize(
    ("checker", "message", "reason"),
    [
        ("pyright", _PYRIGHT_SIGNATURE, 'Missing keyword parameter "on_publish"'),
        ("mypy", _MYPY_SIGNATURE, 'read as "Callable[[ScheduleBatch], GenerationBatchResult]"'),
    ],
)
def test_a_signature_problem_is_at_the_members_def_with_expected_and_got(
    located: Harness, checker: str, message: str, reason: str
) -> None:
    diagnostics = _healthy(located, GOOD, OTHER) + _fire(located, GOOD, LineKind.MEMBER_SIGNATURE, "forward_batch_generation", message)
    (problem,) = interpret(checker, dialect_of(checker), located, diagnostics).problems[Check(GOOD, "SpecWorker")]
    assert (problem.member, problem.file, problem.line) == ("forward_batch_generation", "/plug/mod.py", 12)
    assert problem.message == (
        f"signature does not match: {reason}; expected SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /, *, "
        "on_publish: PublishCallback | None = ...) -> GenerationBatchResult; "
        f"got {_OWN_FORWARD.text}"
    )
    assert "_SpecWorker__" not in problem.message


def test_a_missing_member_is_at_the_class_line_and_says_what_is_expected(located: Harness) -> None:
    missing = Diagnostic(
        _lines(located, GOOD, LineKind.MEMBER_SIGNATURE, "init_cuda_graphs")[0],
        'Cannot access attribute "init_cuda_graphs" for class "Good"\n  Attribute "init_cuda_graphs" is unknown',
        "reportAttributeAccessIssue",
    )
    (problem,) = interpret("pyright", dialect_of("pyright"), located, [*_healthy(located, GOOD, OTHER), missing]).problems[Check(GOOD, "SpecWorker")]
    assert (problem.member, problem.file, problem.line) == ("init_cuda_graphs", "/plug/mod.py", 3)
    assert problem.message == "missing: Good has no init_cuda_graphs; expected SpecWorker.init_cuda_graphs(self) -> None"


def test_the_constructor_is_one_problem_at_the_inherited_init(located: Harness) -> None:
    lines = _lines(located, GOOD, LineKind.CONSTRUCTOR, "__init__")
    diagnostics = _healthy(located, GOOD, OTHER) + [
        Diagnostic(lines[-1], f'No parameter named "{k}"', "reportCallIssue") for k in ("gpu_id", "nccl_port")
    ]
    (problem,) = interpret("pyright", dialect_of("pyright"), located, diagnostics).problems[Check(GOOD, "SpecWorker")]
    # Inherited: reported in the base's file, at its def.
    assert (problem.member, problem.file, problem.line) == ("__init__", "/plug/base.py", 40)
    assert problem.message.startswith(
        'the constructor cannot take the call sglang makes: No parameter named "gpu_id"; No parameter named "nccl_port"; '
        "expected SpecWorkerFactory.__call__(self, *, server_args: ServerArgs, gpu_id: int"
    )
    assert problem.message.endswith("; got Base.__init__(self) -> None")


def test_the_whole_protocol_line_names_pyrights_member_in_its_words(located: Harness) -> None:
    whole = (
        'Type "Good" is not assignable to declared type "SpecWorker"\n'
        '  "Good" is incompatible with protocol "SpecWorker"\n'
        '    "forward_batch_generation" is an incompatible type\n'
        '      Type "partialmethod[GenerationBatchResult]" is not assignable to type "(batch: ScheduleBatch) -> GenerationBatchResult"\n'
        '    "SpecWorker" is not assignable to "Good"\n'
        '    "SpecWorker" is not assignable to "Good"'
    )
    (problem,) = interpret("pyright", dialect_of("pyright"), located, [*_healthy(located, GOOD, OTHER), *_fire(located, GOOD, LineKind.PROTOCOL, message=whole)]).problems[
        Check(GOOD, "SpecWorker")
    ]
    assert (problem.member, problem.line) == ("forward_batch_generation", 12)
    assert problem.message.startswith('does not match: read as "partialmethod[GenerationBatchResult]"; expected SpecWorker.forward_batch_generation(')
    assert "is not assignable to \"Good\"" not in problem.message


def test_combine_puts_a_runtime_problem_at_its_members_def() -> None:
    check = Check(GOOD, "SpecWorker")
    found = (Problem("runtime", "forward_batch_generation", "[signature] ..."), Problem("runtime", "step", "[missing] ..."))
    runtime = CheckerOutcome("runtime", {check: Verdict.FAIL}, {check: found})
    (result,) = combine([check], [runtime], {GOOD: replace(_cls("Good"), members=(_OWN_FORWARD,))})
    assert [(p.member, p.file, p.line) for p in result.problems] == [
        ("forward_batch_generation", "/plug/mod.py", 12),
        ("step", "/plug/mod.py", 3),  # a member the class lacks: the class line
    ]
