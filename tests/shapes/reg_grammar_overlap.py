"""A ``spec_class`` turns grammar overlap on; one worker takes the barrier, one does not.

With ``supports_grammar_overlap()`` true, the scheduler's overlap call
(managers/scheduler.py ``run_batch``) adds ``fwd_kwargs["grammar_barrier"] =
self._advance_pending_grammar`` to ``on_publish=`` and calls
``self.model_worker.forward_batch_generation(batch, **fwd_kwargs)``: a worker
without ``grammar_barrier`` raises ``TypeError`` on every overlap step. The
worker of the other registration takes it and works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# The algorithm object: SpecAlgorithmBase gives what CustomSpecAlgo lacks (reg_algorithm_default).
# expect: reg_grammar_overlap.GrammarAlgo SpecAlgorithm pass runtime=pass replay=pass mypy=pass pyright=pass
class GrammarAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    def supports_grammar_overlap(self) -> bool:
        return True


# expect: reg_grammar_overlap.BarrierWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class BarrierWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        grammar_barrier: Callable[..., Any] | None = None,
    ) -> GenerationBatchResult:
        if grammar_barrier is not None:
            grammar_barrier()
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


# expect: reg_grammar_overlap.NoBarrierWorker SpecWorker fail runtime=fail replay=fail mypy=fail pyright=fail member=forward_batch_generation
class NoBarrierWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, on_publish: Callable[..., Any] | None = None
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)


@SpeculativeAlgorithm.register("SHAPE_REG_GRAMMAR_OK", supports_overlap=True, spec_class=GrammarAlgo)
def _barrier(server_args: ServerArgs) -> type:
    return BarrierWorker


@SpeculativeAlgorithm.register("SHAPE_REG_GRAMMAR_MISSING", supports_overlap=True, spec_class=GrammarAlgo)
def _no_barrier(server_args: ServerArgs) -> type:
    return NoBarrierWorker
