"""Registered with ``supports_overlap=False``; the worker takes only the
synchronous branch's call.

``CustomSpecAlgo.create_worker`` (speculative/spec_registry.py) refuses overlap
scheduling for an algorithm registered with ``supports_overlap=False``, so the
scheduler only ever runs its synchronous branch (managers/scheduler.py
``run_batch``: ``self.model_worker.forward_batch_generation(batch,
pp_proxy_tensors=pp_proxy_tensors)``). ``on_publish=`` is passed only on the
overlap branch, which this algorithm never takes: a worker that does not
accept it works. The sibling copies the overlap branch's signature and has no
``pp_proxy_tensors``: the synchronous call raises ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_sync_pipeline_only.LockstepWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class LockstepWorker(BaseSpecWorker):
    """Runs synchronously, pipeline parallel aware."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch: ScheduleBatch, *, pp_proxy_tensors: Any = None) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch, pp_proxy_tensors=pp_proxy_tensors)


# expect: reg_sync_pipeline_only.CopiedOverlapWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=forward_batch_generation
class CopiedOverlapWorker(BaseSpecWorker):
    """Copied the overlap signature, but is registered synchronous."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, on_publish: Callable[..., Any] | None = None
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)


@SpeculativeAlgorithm.register("SHAPE_REG_SYNC_LOCKSTEP", supports_overlap=False)
def _lockstep(server_args: ServerArgs) -> type:
    return LockstepWorker


@SpeculativeAlgorithm.register("SHAPE_REG_SYNC_COPIED", supports_overlap=False)
def _copied(server_args: ServerArgs) -> type:
    return CopiedOverlapWorker
