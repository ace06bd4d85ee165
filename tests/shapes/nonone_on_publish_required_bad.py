"""Registered for overlap scheduling; ``on_publish`` is required but typed as what it is not.

The overlap branch passes ``on_publish=partial(self.future_map.publish,
future_indices)`` (managers/scheduler.py ``Scheduler.run_batch``): a callable,
never ``None``, never an ``int``. That the call site never passes ``None``
drops ``None`` from what the worker must accept, nothing else: a worker whose
``on_publish`` is an ``int`` (a step counter mistaken for the callback) still
fails the static checkers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: nonone_on_publish_required_bad.CounterPublishWorker SpecWorker fail runtime=pass mypy=fail pyright=fail member=forward_batch_generation
class CounterPublishWorker(BaseSpecWorker):
    """Takes ``on_publish`` as a step count."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
        self.steps = 0

    def forward_batch_generation(self, batch: ScheduleBatch, *, on_publish: int) -> GenerationBatchResult:
        self.steps += on_publish
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


@SpeculativeAlgorithm.register("SHAPE_NONONE_COUNTER_PUBLISH", supports_overlap=True)
def _counter(server_args: ServerArgs) -> type:
    return CounterPublishWorker
