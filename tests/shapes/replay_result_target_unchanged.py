"""``forward_batch_generation`` hands back the target worker's result unchanged, on the overlap loop.

The target worker's own ``GenerationBatchResult`` leaves ``next_draft_input``
None (managers/utils.py). On the overlap loop ``Scheduler.run_batch`` sets
``batch.spec_info = batch_result.next_draft_input`` and reads
``batch.spec_info.dsa_topk_indices`` (managers/scheduler.py:4751-4755 in
0.5.23): ``AttributeError`` at the first batch. The annotation
``-> GenerationBatchResult`` says nothing about the field, so only the replay,
which calls the member and holds its value to the release's reads, fails it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase, SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: replay_result_target_unchanged.UnchangedAlgorithm SpecAlgorithm pass runtime=pass replay=pass mypy=pass pyright=pass
class UnchangedAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """The algorithm object: CustomSpecAlgo, plus what it lacks (as in reg_algorithm_conforming)."""


# expect: replay_result_target_unchanged.PassThroughWorker SpecWorker fail runtime=pass replay=fail mypy=pass pyright=pass runtime-decides
class PassThroughWorker(SpecWorkerBase):
    """Verifies nothing: the target's result is the answer."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)


@SpeculativeAlgorithm.register("SHAPE_REPLAY_RESULT_UNCHANGED", supports_overlap=True, spec_class=UnchangedAlgorithm)
def _pass_through(server_args: ServerArgs) -> type:
    return PassThroughWorker
