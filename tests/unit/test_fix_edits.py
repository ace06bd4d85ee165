"""The edits of ``spec-protocols fix`` on source text (issue 30, items 1-2): LibCST, so untouched lines keep their text.

Each edit is made from a finding's own words (its ``expected`` signature):
a missing member is added as a property or method raising
NotImplementedError, with the imports its annotations need under ``if
TYPE_CHECKING:``; a parameter spelled otherwise is renamed with its uses
(attribute names and call keywords keep theirs); a keyword sglang passes is
added keyword-only; ``async`` is dropped where the body does not await.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from spec_protocols.gate._fix._edits import Edit, apply_edits
from spec_protocols.gate._fix._wanted import Wanted, wanted_of

MISSING = (
    "missing: W has no last_shared_read_runner; expected @property SpecWorker.last_shared_read_runner(self) -> "
    "ModelRunner (used only on the overlap event loops: managers/scheduler.py:2017 (Scheduler._apply_war_barrier))"
)
CONSTRUCTOR = (
    'the constructor cannot take the call sglang makes: No parameter named "gpu_id"; expected '
    "SpecWorkerFactory.__call__(self, *, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: "
    "TpModelWorker) -> SpecWorker; got W.__init__(self, server_args, gpu, nccl_port, target_worker)"
)
FORWARD = (
    'signature does not match: Missing keyword parameter "on_publish"; expected SpecWorker.forward_batch_generation('
    "self, batch: ScheduleBatch, /, *, on_publish: PublishCallback | None = ...) -> GenerationBatchResult "
    "(as the scheduler calls it); got W.forward_batch_generation(self, batch)"
)

SOURCE = textwrap.dedent(
    '''\
    """A plugin."""  # the module's docstring

    import math


    class W:  # the worker
        # a comment that stays
        def __init__(self, server_args, gpu, nccl_port, target_worker):
            self.gpu = gpu  # attribute name kept, value renamed
            print(gpu, math.pi, sep=gpu)

        def forward_batch_generation(self, batch):
            return batch

        async def init_cuda_graphs(self):
            pass
    '''
)


def _wanted(member: str, message: str) -> Wanted:
    found = wanted_of(member, message)
    assert found is not None
    return found


def test_a_missing_member_is_added_with_its_imports() -> None:
    applied = apply_edits(SOURCE, [Edit("W", "last_shared_read_runner", "add", _wanted("last_shared_read_runner", MISSING))])
    text = applied.text
    assert "    @property\n    def last_shared_read_runner(self) -> ModelRunner:\n        raise NotImplementedError(" in text
    assert "from __future__ import annotations" in text.splitlines()[1]  # after the docstring
    assert "if TYPE_CHECKING:\n    from sglang.srt.model_executor.model_runner import ModelRunner\n" in text
    assert "from typing import TYPE_CHECKING\n" in text
    # Every line of the original is still there, in order.
    lines = iter(text.splitlines())
    assert all(any(line == kept for kept in lines) for line in SOURCE.splitlines())
    assert [safety for safety, _ in applied.done] == ["review", "safe"]


def test_a_parameter_spelled_otherwise_is_renamed_with_its_uses() -> None:
    applied = apply_edits(SOURCE, [Edit("W", "__init__", "signature", _wanted("__init__", CONSTRUCTOR))])
    text = applied.text
    assert "def __init__(self, server_args, gpu_id, nccl_port, target_worker):" in text
    assert "self.gpu = gpu_id  # attribute name kept, value renamed" in text
    assert "print(gpu_id, math.pi, sep=gpu_id)" in text
    assert "# a comment that stays" in text


def test_a_keyword_sglang_passes_is_added_keyword_only() -> None:
    applied = apply_edits(SOURCE, [Edit("W", "forward_batch_generation", "signature", _wanted("forward_batch_generation", FORWARD))])
    assert "def forward_batch_generation(self, batch, *, on_publish: Callable[..., object] | None = None):" in applied.text
    assert "    from collections.abc import Callable\n" in applied.text
    assert applied.done[0][0] == "safe"  # it has a default: every existing call still binds


def test_async_is_dropped_unless_the_body_awaits() -> None:
    applied = apply_edits(SOURCE, [Edit("W", "init_cuda_graphs", "sync")])
    assert "    def init_cuda_graphs(self):" in applied.text and "async def" not in applied.text
    awaiting = SOURCE.replace("        pass\n", "        await something()\n")
    refused = apply_edits(awaiting, [Edit("W", "init_cuda_graphs", "sync")])
    assert refused.text == awaiting and refused.refused and "it awaits" in refused.refused[0]


def test_nothing_to_do_leaves_the_text_byte_identical() -> None:
    assert apply_edits(SOURCE, []).text == SOURCE


KIND_SOURCE = textwrap.dedent(
    '''\
    class D:
        def weight_load_time(self) -> float:  # read as a value by sglang
            return 0.0

        @property
        def weight_update_runners(self) -> list[object]:
            return []

        @property
        def held(self) -> int:
            return 1

        @held.setter
        def held(self, value: int) -> None:
            pass
    '''
)


def test_a_method_becomes_a_property_and_a_property_a_method_where_sglang_says() -> None:
    as_value = wanted_of(
        "weight_load_time",
        'type does not match: read as "Callable[[], float]"; expected @property DraftWorker.weight_load_time(self) -> float; '
        "got D.weight_load_time(self) -> float",
    )
    as_call = wanted_of(
        "weight_update_runners",
        "type does not match; expected DraftWorker.weight_update_runners(self) -> list[tuple[str, ModelRunner]]; "
        "got @property D.weight_update_runners(self) -> list[object]",
    )
    assert as_value is not None and as_value.is_property and as_call is not None and not as_call.is_property
    applied = apply_edits(KIND_SOURCE, [Edit("D", "weight_load_time", "kind", as_value), Edit("D", "weight_update_runners", "kind", as_call)])
    assert "    @property\n    def weight_load_time(self) -> float:  # read as a value by sglang\n" in applied.text
    assert "    def weight_update_runners(self) -> list[object]:\n" in applied.text
    assert "@property\n    def weight_update_runners" not in applied.text
    assert [safety for safety, _ in applied.done] == ["review", "review"]
    # A property with a setter is left to the author, said why.
    held = wanted_of("held", "type does not match; expected DraftWorker.held(self) -> int; got @property D.held(self) -> int")
    refused = apply_edits(KIND_SOURCE, [Edit("D", "held", "kind", held)])
    assert refused.text == KIND_SOURCE and "setter" in refused.refused[0]


REGISTERING = textwrap.dedent(
    '''\
    def register() -> None:
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        from fxp import workers

        # the plugin's algorithm
        SpeculativeAlgorithm.register("FXP", supports_overlap=True)(lambda server_args: workers.Broken)
        SpeculativeAlgorithm.register("KEPT", spec_class=workers.Algorithm)(lambda server_args: workers.Broken)
    '''
)


def test_a_registration_without_spec_class_is_given_a_conforming_one_in_its_own_block() -> None:
    from spec_protocols.gate._fix._registration import with_spec_class

    applied = with_spec_class(REGISTERING)
    text = applied.text
    assert "    class FxpAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):\n" in text
    assert "    from sglang.srt.speculative.spec_registry import CustomSpecAlgo\n    from spec_protocols import SpecAlgorithmBase\n" in text
    assert 'SpeculativeAlgorithm.register("FXP", supports_overlap=True, spec_class=FxpAlgorithm)(lambda server_args: workers.Broken)' in text
    # A registration that names its spec_class is left as it is; the comment stays above the edit.
    assert 'SpeculativeAlgorithm.register("KEPT", spec_class=workers.Algorithm)(' in text and text.count("spec_class=") == 2
    assert text.index("# the plugin's algorithm") < text.index("class FxpAlgorithm")
    assert [safety for safety, _ in applied.done] == ["review"]
    compile(text, "<edited>", "exec")


def test_fix_plans_the_registration_edit_for_sglangs_default_algorithm_object(tmp_path: Path) -> None:
    from spec_protocols.gate._fix import Editable, plan_fixes
    from spec_protocols.gate._model import Check, GateReport, Problem, Result, Verdict

    package = tmp_path / "fxp"
    package.mkdir()
    (package / "__init__.py").write_text(REGISTERING, encoding="utf-8")
    sglang_file = tmp_path / "site" / "spec_registry.py"
    missing = Problem("mypy", "is_eagle", "missing: CustomSpecAlgo has no is_eagle", file=str(sglang_file), line=10, claim="exists")
    report = GateReport(
        results=(Result(Check("sglang.srt.speculative.spec_registry.CustomSpecAlgo", "SpecAlgorithm"), Verdict.FAIL, {"mypy": Verdict.FAIL}, (missing,)),),
        checkers=("mypy",),
        timings={},
    )
    plan = plan_fixes(report, Editable((package.resolve(),)))
    (changed,) = plan.changed
    assert changed.path == (package / "__init__.py").resolve()
    assert changed.applied is not None and "spec_class=FxpAlgorithm" in changed.applied.text
    assert plan.left == []  # the edit answers the default object's findings
    # Without the plugin among the targets, nothing is edited and the finding is left, said why.
    outside = plan_fixes(report, Editable((tmp_path / "elsewhere",)))
    assert outside.changed == [] and "is not among the targets" in outside.left[0]
