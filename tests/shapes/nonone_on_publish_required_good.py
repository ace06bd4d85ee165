"""Registered for overlap scheduling; ``on_publish`` is required and not ``| None``.

An algorithm registered with ``supports_overlap=True`` runs the scheduler's
overlap branch (speculative/spec_registry.py ``CustomSpecAlgo.create_worker``;
sglang's default configuration schedules with overlap), whose call is
``self.model_worker.forward_batch_generation(batch, **fwd_kwargs)`` with
``fwd_kwargs["on_publish"] = partial(self.future_map.publish, future_indices)``
(managers/scheduler.py ``Scheduler.run_batch``, every release from 0.5.14 on):
``on_publish`` is always passed and never ``None``. A worker that requires it,
typed as the callback it is, takes that call; the protocol's
``PublishCallback | None`` is what a caller of the protocol may pass, not what
this branch does.
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

PublishCallback = Callable[..., object]


# expect: nonone_on_publish_required_good.EagerPublishWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class EagerPublishWorker(BaseSpecWorker):
    """Publishes the new sequence lengths as soon as verification is done."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch: ScheduleBatch, *, on_publish: PublishCallback) -> GenerationBatchResult:
        result = self.target_worker.forward_batch_generation(batch)
        on_publish(batch.seq_lens)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


@SpeculativeAlgorithm.register("SHAPE_NONONE_EAGER_PUBLISH", supports_overlap=True)
def _eager(server_args: ServerArgs) -> type:
    return EagerPublishWorker
