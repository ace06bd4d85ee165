"""``prewarm_sampling`` returns ``None``: sglang discards the value.

The scheduler calls ``self.draft_worker.prewarm_sampling()`` as a statement at
start-up (managers/scheduler.py, from 0.5.20 on) and never reads what it
returns. sglang's own workers return a ``SamplingPrewarmResult``; a worker
with nothing to warm returns ``None``, and works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: replay_prewarm_returns_none.ColdStartWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class ColdStartWorker(SpecWorkerBase):
    """Has no sampler of its own to warm."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args

    def prewarm_sampling(self) -> None:
        return None

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


@SpeculativeAlgorithm.register("SHAPE_REPLAY_COLD_START", supports_overlap=True)
def _cold(server_args: ServerArgs) -> type:
    return ColdStartWorker
