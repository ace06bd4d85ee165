"""A result sglang drops: any value will do, a coroutine will not.

A member every call of which the release makes as a statement
(``ReleaseTerms.discarded``) is held to an ``object`` result in the harness,
and gets a line that a coroutine function satisfies (``_w: _Deferring``), which
must error, beside a canary that says whether the result is ``Any``
(``_r: _Resulting``). Read here: which members the contract drops, the lines
the harness writes, and what a checker's silence on them means. The checkers
themselves run on the shape ``tests/shapes/dropped_result_async.py``.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from spec_protocols.gate._checkers import dialect_of
from spec_protocols.gate._checkers._interpret import Diagnostic, interpret
from spec_protocols.gate._contract import release_terms
from spec_protocols.gate._contract._terms import discarded_values
from spec_protocols.gate._harness._lines import LineKind, build_harness
from spec_protocols.gate._model import Check, ClassRole, DiscoveredClass, Problem, Verdict

from tests.unit.test_contract_rules import contract_of


def test_a_member_only_ever_called_as_a_statement_is_dropped(tmp_path: Path) -> None:
    contract = contract_of(
        tmp_path,
        """
        def init_model_worker(self):
            self.draft_worker.init_cuda_graphs()
            self.draft_worker.clear_cache_pool()
            self.draft_worker.init_attention_backends()
            if hasattr(self.draft_worker, "init_attention_backends"):
                pass

        def flush_cache(self):
            ok = self.draft_worker.clear_cache_pool()
        """,
    )
    dropped = discarded_values(contract)["SpecWorker"]
    assert "init_cuda_graphs" in dropped
    # Kept once (assigned), read once: sglang uses it.
    assert "clear_cache_pool" not in dropped
    assert "init_attention_backends" not in dropped


def _terms_dropping(*members: str):
    terms = release_terms(None)
    return dataclasses.replace(terms, discarded={"SpecWorker": frozenset(members)}, whole=frozenset())


def _worker() -> DiscoveredClass:
    return DiscoveredClass("plugin.workers", "W", Path("/dev/null"), 1, frozenset({ClassRole.SPEC_WORKER}))


def test_the_harness_holds_a_dropped_result_to_object_and_writes_its_coroutine_lines() -> None:
    harness = build_harness([_worker()], terms=_terms_dropping("init_cuda_graphs"))
    ast.parse(harness.text)
    callbacks = {c.name: c for c in ast.parse(harness.text).body if isinstance(c, ast.ClassDef)}
    assert _returns(callbacks["_SpecWorker__init_cuda_graphs"]) == "object"
    assert _returns(callbacks["_SpecWorker__clear_cache_pool"]) == "None"  # not dropped in these terms
    lines = harness.text.splitlines()
    mine = {t.kind: lines[n - 1].strip() for n, t in harness.tags.items() if t.member == "init_cuda_graphs"}
    assert mine[LineKind.MEMBER_DEFERRED].endswith(": _Deferring = w.init_cuda_graphs")
    assert mine[LineKind.MEMBER_RESULT].endswith(": _Resulting = w.init_cuda_graphs")
    # A member whose result sglang keeps keeps the protocol's type and gets no such line.
    others = {t.member for t in harness.tags.values() if t.kind is LineKind.MEMBER_DEFERRED}
    assert others == {"init_cuda_graphs", "prewarm_sampling"}  # prewarm_sampling's protocol result is object already


def _returns(callback: ast.ClassDef) -> str:
    (call,) = callback.body
    assert isinstance(call, ast.FunctionDef) and call.returns is not None
    return ast.unparse(call.returns)


def _judged(errored: set[LineKind]) -> tuple[Verdict, tuple[Problem, ...]]:
    """The verdict mypy's diagnostics give: every canary fires, and of the
    dropped result's two lines, those in ``errored``."""
    harness = build_harness([_worker()], terms=_terms_dropping("init_cuda_graphs"))
    target = "plugin.workers.W"
    fired = {LineKind.CANARY_CLASS, LineKind.CANARY_INSTANCE, LineKind.MEMBER_ANY, LineKind.MEMBER_GRADUAL}
    diagnostics = [
        Diagnostic(n, "Incompatible types in assignment")
        for n, t in sorted(harness.tags.items())
        if t.target == target and (t.kind in fired or (t.member == "init_cuda_graphs" and t.kind in errored))
    ]
    outcome = interpret("mypy", dialect_of("mypy"), harness, diagnostics)
    check = Check(target, "SpecWorker")
    return outcome.verdicts[check], outcome.problems[check]


def test_a_silent_awaiting_line_with_a_typed_result_is_a_coroutine() -> None:
    verdict, problems = _judged({LineKind.MEMBER_RESULT})
    assert verdict is Verdict.FAIL
    (problem,) = problems
    assert problem.member == "init_cuda_graphs"
    # The class's definition was not read here: the words name both ways a body never runs.
    assert problem.message.startswith("returns a coroutine or a generator where sglang drops the result")
    assert "expected SpecWorker.init_cuda_graphs(self) -> object" in problem.message


def test_a_plain_method_errs_on_both_lines_and_passes() -> None:
    assert _judged({LineKind.MEMBER_DEFERRED, LineKind.MEMBER_RESULT}) == (Verdict.PASS, ())


def test_a_result_the_checker_reads_as_any_says_nothing_about_awaiting() -> None:
    # Both silent: the method returns Any (an unannotated def to mypy), which
    # either line accepts; it is not called a coroutine.
    assert _judged(set()) == (Verdict.PASS, ())


def test_what_a_kept_default_needs_of_the_draft_keeps_the_protocols_result() -> None:
    """``BaseSpecWorker.init_cuda_graphs`` calls ``self.draft_worker.init_cuda_graphs()``
    as a statement: a DraftWorker-role class is held to ``object`` there (with
    its own line against coroutines), but a need's line has no such line, so
    it keeps the protocol's ``None``."""
    from dataclasses import replace

    from tests.unit.test_contract_terms import BASE, contract, needs, spec_members, use, worker

    dropped = replace(use("init_cuda_graphs", receiver="draft_worker", kind="call"), value_used=False)
    terms = release_terms(contract("0.5.23", spec_members("0.5.23"), defaults=(needs("init_cuda_graphs", dropped, relies_on=("draft_worker",)),)))
    assert terms.discarded["DraftWorker"] == {"init_cuda_graphs"}
    harness = build_harness([worker(ClassRole.SPEC_WORKER, bases=(BASE,))], terms=terms)
    lines = harness.text.splitlines()
    (need,) = [lines[n - 1].strip() for n, t in harness.tags.items() if t.kind is LineKind.NEEDS and t.member == "init_cuda_graphs"]
    assert need == "_n0: _DraftWorker_as_written__init_cuda_graphs = _dw.init_cuda_graphs"
    callbacks = {c.name: c for c in ast.parse(harness.text).body if isinstance(c, ast.ClassDef)}
    assert _returns(callbacks["_DraftWorker_as_written__init_cuda_graphs"]) == "None"
    # In a checker's words, it is the protocol's member.
    from spec_protocols.gate._checkers._said import plain

    assert plain('"_DraftWorker_as_written__init_cuda_graphs"') == '"DraftWorker.init_cuda_graphs"'
