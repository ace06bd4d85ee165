"""The checkers' own diagnostics on a checked class's lines, on synthetic diagnostics (no checker runs).

What mypy and pyright report at a checked class's statement, its decorators,
its members' definitions, its class-level statements and inside its
constructor is that class's problem, at that line; what they report elsewhere
in its member bodies is a count in a note (issue 20, item 1). A construct a
checker cannot model (attrs' generated ``__init__``, ``cached_property``,
``partialmethod``, a member only ``__getattr__`` gives an instance) is an
``unverified`` column with its reason, never ``fail``, and another checker's
pass decides (item 6). The source is a real file under ``tmp_path``; the
diagnostics are made up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spec_protocols.gate._findings import BodyDiagnostics, ClassDiagnostic
from spec_protocols.gate._checkers import dialect_of
from spec_protocols.gate._checkers._class_diagnostics import class_findings
from spec_protocols.gate._checkers._interpret import Diagnostic, interpret
from spec_protocols.gate._findings import Wrong
from spec_protocols.gate._harness._lines import Harness, LineKind, build_harness
from spec_protocols.gate._harness._regions import class_regions
from spec_protocols.gate._harness._sites import _rewrite
from spec_protocols.gate._model import (
    Check,
    CheckerOutcome,
    ClassRole,
    DiscoveredClass,
    InjectionSite,
    MemberDefinition,
    Problem,
    Verdict,
)
from spec_protocols.gate._verdicts import combine

SOURCE = '''\
from __future__ import annotations

import functools
import attrs
from functools import partialmethod


def register(cls):
    return cls


@register
class Worker(Base):
    limit: int = 4
    backends = ()

    def __init__(self, server_args, target_worker) -> None:
        import numpy
        super().__init__()
        self.draft_swa_window = 64
        build(**{"draft_worker_cls": Draft})

    @property
    def weight_load_time(
        self,
    ) -> float:
        return "slow"

    @functools.cached_property
    def graph_time_usage(self) -> dict[str, float]:
        return {}

    forward_batch_generation = partialmethod(_step, greedy=True)

    def _helper(self) -> int:
        x: int = "no"
        return x


@attrs.define
class AttrsWorker(Base):
    server_args: object
'''

# The lines of SOURCE, by what they hold.
CLASS_LINE = 13
DECORATOR = 12
CLASS_ASSIGN = 14
INHERITED_ASSIGN = 15
INIT_IMPORT = 18
INIT_BODY = 20
INIT_UNPACK = 21
PROPERTY_SIGNATURE = 25
PROPERTY_BODY = 27
HELPER_BODY = 37


@pytest.fixture()
def source(tmp_path: Path) -> Path:
    file = tmp_path / "plug.py"
    file.write_text(SOURCE, encoding="utf-8")
    return file.resolve()


#: A member BaseSpecWorker defines (a read-only property there): the constructor's store on it meets sglang.
SGLANG_MEMBER = MemberDefinition(
    "draft_swa_window", "sglang.srt.speculative.base_spec_worker.BaseSpecWorker", Path("base_spec_worker.py"), 1, "draft_swa_window"
)


def _cls(
    file: Path, qualname: str = "Worker", line: int = CLASS_LINE, members: tuple[MemberDefinition, ...] = (SGLANG_MEMBER,)
) -> DiscoveredClass:
    return DiscoveredClass("plug", qualname, file, line, frozenset({ClassRole.SPEC_WORKER}), members=members)


def test_a_constructor_statement_that_meets_no_sglang_api_is_the_authors_own(source: Path) -> None:
    """Only what meets sglang counts in a constructor; the rest is a count in a note, like any body."""
    regions = class_regions([_cls(source, members=())])["plug.Worker"]
    assert regions.place(source, INIT_BODY) == ("body", None)  # self.draft_swa_window, not sglang's member here
    assert regions.place(source, INIT_BODY - 1) == ("contract", "__init__")  # super().__init__() still does


def test_the_class_own_lines_and_its_bodies(source: Path) -> None:
    regions = class_regions([_cls(source)])["plug.Worker"]
    assert regions.place(source, CLASS_LINE) == ("contract", None)
    assert regions.place(source, DECORATOR) == ("contract", None)
    assert regions.place(source, CLASS_ASSIGN) == ("contract", "limit")
    assert regions.place(source, INIT_BODY) == ("contract", "__init__")  # a store on a member sglang's base defines
    assert regions.place(source, INIT_BODY - 1) == ("contract", "__init__")  # super().__init__(): sglang's constructor
    assert regions.place(source, PROPERTY_SIGNATURE) == ("contract", "weight_load_time")
    assert regions.place(source, PROPERTY_BODY) == ("body", None)
    assert regions.place(source, HELPER_BODY) == ("body", None)
    # An import inside the constructor, and a ** argument: never the class's.
    assert regions.place(source, INIT_IMPORT) is None
    assert regions.place(source, INIT_UNPACK) is None
    # Another file's line is not the class's.
    assert regions.place(source.with_name("other.py"), INIT_BODY) is None
    assert regions.assigns_inherited(source, INHERITED_ASSIGN)
    assert not regions.assigns_inherited(source, CLASS_ASSIGN)


def test_constructs_no_checker_models_are_read_from_the_source(source: Path) -> None:
    regions = class_regions([_cls(source), _cls(source, "AttrsWorker", 41)])
    worker, attrs_worker = regions["plug.Worker"], regions["plug.AttrsWorker"]
    assert worker.cached_properties == {"graph_time_usage"}
    assert worker.partial_methods == {"forward_batch_generation"}
    assert not worker.attrs
    assert attrs_worker.attrs


def test_an_unreadable_class_has_no_regions(tmp_path: Path) -> None:
    assert class_regions([_cls(tmp_path / "missing.py")]) == {}


def _diag(source: Path, line: int, message: str = "error", code: str | None = "misc") -> Diagnostic:
    return Diagnostic(line, message, code, file=source)


def test_what_counts_at_the_class_lines(source: Path) -> None:
    regions = class_regions([_cls(source)])["plug.Worker"]
    diagnostics = [
        _diag(source, INIT_BODY, 'Property "draft_swa_window" defined in "BaseSpecWorker" is read-only'),
        _diag(source, CLASS_LINE, "Metaclass conflict", "metaclass"),
        # Not the class's: a comparison with the base, a missing import, typing hygiene.
        _diag(source, PROPERTY_SIGNATURE, "Signature incompatible with supertype", "override"),
        _diag(source, INIT_BODY, 'Cannot find implementation or library stub for module named "x"', "import-not-found"),
        _diag(source, INIT_BODY, 'Need type annotation for "cache"', "var-annotated"),
        # In member bodies: counted.
        _diag(source, PROPERTY_BODY, "Incompatible return value type", "return-value"),
        _diag(source, HELPER_BODY, "Incompatible types in assignment", "assignment"),
    ]
    found, notes = class_findings("mypy", dialect_of("mypy"), regions, diagnostics)
    assert [(type(f), f.member, f.line) for f in found] == [
        (ClassDiagnostic, "__init__", INIT_BODY),
        (ClassDiagnostic, None, CLASS_LINE),
    ]
    assert notes == [BodyDiagnostics("mypy", 2)]
    # pyright's words for what is not the class's: an override, an assignment to a base's name.
    pyright = [
        _diag(source, CLASS_LINE, '"limit" incorrectly overrides property of same name', "reportIncompatibleMethodOverride"),
        _diag(source, INHERITED_ASSIGN, 'Type "tuple[()]" is not assignable to declared type', "reportAssignmentType"),
    ]
    assert class_findings("pyright", dialect_of("pyright"), regions, pyright) == ([], [])


def _healthy(harness: Harness, target: str) -> list[Diagnostic]:
    kinds = (LineKind.CANARY_CLASS, LineKind.CANARY_INSTANCE, LineKind.MEMBER_ANY, LineKind.MEMBER_GRADUAL)
    return [Diagnostic(n, "error") for n, t in harness.tags.items() if t.target == target and t.kind in kinds]


def test_a_constructor_error_fails_the_class_at_its_line(source: Path) -> None:
    harness = build_harness([_cls(source)])
    message = 'Property "draft_swa_window" defined in "BaseSpecWorker" is read-only'
    outcome = interpret("mypy", dialect_of("mypy"), harness, [*_healthy(harness, "plug.Worker"), _diag(source, INIT_BODY, message)])
    check = Check("plug.Worker", "SpecWorker")
    assert outcome.verdicts[check] is Verdict.FAIL
    (problem,) = outcome.problems[check]
    assert (problem.member, problem.file, problem.line, problem.unverified) == ("__init__", str(source), INIT_BODY, False)
    assert message in problem.message and "[misc]" in problem.message


def test_an_error_in_a_method_body_is_a_note(source: Path) -> None:
    harness = build_harness([_cls(source)])
    outcome = interpret("pyright", dialect_of("pyright"), harness, [*_healthy(harness, "plug.Worker"), _diag(source, HELPER_BODY)])
    check = Check("plug.Worker", "SpecWorker")
    assert outcome.verdicts[check] is Verdict.PASS
    assert outcome.problems[check] == ()
    assert "pyright reports 1 error inside this class's method bodies" in outcome.notes[check]


def test_a_class_diagnostic_never_reaches_another_class(source: Path) -> None:
    harness = build_harness([_cls(source), _cls(source, "AttrsWorker", 41)])
    diagnostics = [*_healthy(harness, "plug.Worker"), *_healthy(harness, "plug.AttrsWorker"), _diag(source, INIT_BODY)]
    outcome = interpret("mypy", dialect_of("mypy"), harness, diagnostics)
    assert outcome.verdicts[Check("plug.Worker", "SpecWorker")] is Verdict.FAIL
    assert outcome.verdicts[Check("plug.AttrsWorker", "SpecWorker")] is Verdict.PASS


def test_attrs_construction_is_unverified_not_failed(source: Path) -> None:
    harness = build_harness([_cls(source, "AttrsWorker", 41)])
    target = "plug.AttrsWorker"
    constructor = [
        Diagnostic(n, 'Unexpected keyword argument "server_args" for "AttrsWorker"', "call-arg")
        for n, t in harness.tags.items()
        if t.target == target and t.kind is LineKind.CONSTRUCTOR
    ][:1]
    outcome = interpret("mypy", dialect_of("mypy"), harness, [*_healthy(harness, target), *constructor])
    check = Check(target, "SpecWorker")
    assert outcome.verdicts[check] is Verdict.UNVERIFIED
    (problem,) = outcome.problems[check]
    assert problem.unverified and problem.unmodelled
    assert "the __init__ attrs generates" in problem.message
    # At the class (its decorator writes the __init__), not at a base's.
    assert (problem.member, problem.line) == (None, 41)


def _outcome(checker: str, check: Check, verdict: Verdict, *problems: Problem) -> CheckerOutcome:
    return CheckerOutcome(checker, {check: verdict}, {check: problems})


def test_an_unmodelled_column_yields_to_another_checker_pass() -> None:
    check = Check("plug.Worker", "SpecWorker")
    gap = Problem("pyright", "weight_load_time", "pyright cannot check weight_load_time", unverified=True, unmodelled=True)
    blind = Problem("pyright", "weight_load_time", "pyright sees weight_load_time as Any", unverified=True)
    passes = _outcome("mypy", check, Verdict.PASS)
    (result,) = combine([check], [passes, _outcome("pyright", check, Verdict.UNVERIFIED, gap)], {})
    assert result.verdict is Verdict.PASS
    assert result.checkers["pyright"] is Verdict.UNVERIFIED
    # A blind spot of another kind still holds the check back.
    (held,) = combine([check], [passes, _outcome("pyright", check, Verdict.UNVERIFIED, gap, blind)], {})
    assert held.verdict is Verdict.UNVERIFIED
    # No other checker passes: nothing proves the call works.
    (alone,) = combine([check], [_outcome("pyright", check, Verdict.UNVERIFIED, gap)], {})
    assert alone.verdict is Verdict.UNVERIFIED
    # A failure still fails.
    failing = Problem("mypy", "forward_batch_generation", "signature does not match")
    (failed,) = combine([check], [_outcome("mypy", check, Verdict.FAIL, failing), _outcome("pyright", check, Verdict.UNVERIFIED, gap)], {})
    assert failed.verdict is Verdict.FAIL


def test_a_shadow_line_maps_back_to_the_original() -> None:
    text = '"""doc"""\nimport x\nclass A:\n    def f(self):\n        g(draft_worker_cls=partial(\n            B, k=1))\n        return 2\n'
    site = InjectionSite("m.A.f:draft_worker_cls", "m", Path("m.py"), 5, 27, 6, 20, "partial(B, k=1)")
    rewritten, _, origin = _rewrite(text, [(1, site)], "helper", ["server_args"])
    lines = rewritten.splitlines()
    assert len(origin) == len(lines)
    assert origin[1] == 0 and lines[1].startswith("import helper")
    # The site's two lines are one; the line after it is the original's 7.
    assert lines[origin.index(7)].strip() == "return 2"


def test_an_attribute_another_class_lacks_is_only_counted(source: Path) -> None:
    """sglang's classes are read through stubs that may not list every
    attribute: that one of them lacks a member is no verdict on the class."""
    regions = class_regions([_cls(source)])["plug.Worker"]
    diagnostics = [
        _diag(source, INIT_BODY, '"ModelRunner" has no attribute "attn_backend"', "attr-defined"),
        _diag(source, INIT_BODY, '"Worker" has no attribute "draft_runner"', "attr-defined"),
    ]
    found, notes = class_findings("mypy", dialect_of("mypy"), regions, diagnostics, "Worker")
    assert [f.lines for f in found] == [('"Worker" has no attribute "draft_runner"',)]
    assert [n.count for n in notes] == [1]
    pyright = [
        _diag(source, INIT_BODY, 'Cannot access attribute "attn_backend" for class "ModelRunner"', "reportAttributeAccessIssue"),
        _diag(source, INIT_BODY, 'Cannot access attribute "draft_runner" for class "Worker*"', "reportAttributeAccessIssue"),
    ]
    found, notes = class_findings("pyright", dialect_of("pyright"), regions, pyright, "Worker")
    assert [f.lines for f in found] == [('Cannot access attribute "draft_runner" for class "Worker*"',)]
    assert [n.count for n in notes] == [1]
