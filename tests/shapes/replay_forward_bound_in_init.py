"""``forward_batch_generation`` bound on the instance in ``__init__``, chosen by a server flag.

The worker picks its step function when it is built and stores the bound
method as an instance attribute. The class body has no such member, so a
reader of the class finds none; the scheduler reads
``self.draft_worker.forward_batch_generation`` from the instance it built
(managers/scheduler.py ``run_batch``) and finds the bound method, whose
signature takes the overlap branch's call. It works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: replay_forward_bound_in_init.BoundStepWorker SpecWorker pass runtime=unverified replay=pass mypy=pass pyright=pass runtime-decides
class BoundStepWorker(BaseSpecWorker):
    """Runs the target model; the step is chosen at construction."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
        self.forward_batch_generation = self._plain_step

    def _plain_step(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


@SpeculativeAlgorithm.register("SHAPE_REPLAY_BOUND_STEP", supports_overlap=True)
def _bound(server_args: ServerArgs) -> type:
    return BoundStepWorker
