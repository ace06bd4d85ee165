"""``forward_batch_generation`` fills ``next_draft_input`` on the result it returns, on the overlap loop.

What ``Scheduler.run_batch`` does with the result on the overlap loop
(0.5.23): it relays the draft input (``RelayPayload.from_draft_input`` reads
``bonus_tokens``, ``topk_p``, ``topk_index``, ``hidden_states``,
``dsa_topk_indices``; managers/overlap_utils.py), sets ``batch.spec_info`` to
it and stores ``future_dsa_topk_indices_available`` and ``future_indices`` on
it (managers/scheduler.py:4751-4755). An ``EagleDraftInput`` carries them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase, SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: replay_result_draft_input_set.DraftInputAlgorithm SpecAlgorithm pass runtime=pass replay=pass mypy=pass pyright=pass
class DraftInputAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """The algorithm object: CustomSpecAlgo, plus what it lacks (as in reg_algorithm_conforming)."""


# expect: replay_result_draft_input_set.DraftInputWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class DraftInputWorker(SpecWorkerBase):
    """Hands the next round its draft input on the result."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()
        return result


@SpeculativeAlgorithm.register("SHAPE_REPLAY_RESULT_DRAFT_INPUT", supports_overlap=True, spec_class=DraftInputAlgorithm)
def _draft_input(server_args: ServerArgs) -> type:
    return DraftInputWorker
