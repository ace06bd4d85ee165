"""A ``SpecWorkerBase`` subclass whose constructor never calls ``super().__init__``.

``SpecWorkerBase``'s lifecycle defaults (``target_worker``, ``draft_worker``,
``alloc_memory_pool``...) read what its ``__init__`` sets. This worker stores
the target under a name of its own and never runs the base's ``__init__``:
its members all exist, with sglang's signatures, so a reading of the class
passes it; built as the scheduler builds it, the first default the scheduler
reads (``draft_parallel_layout``, managers/scheduler.py) raises. The
sibling calls ``super().__init__(target_worker=...)`` and works.
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


# expect: replay_specworkerbase_no_super.ForgetfulWorker SpecWorker fail runtime=pass replay=fail mypy=pass pyright=pass runtime-decides
class ForgetfulWorker(SpecWorkerBase):
    """Keeps the target as ``self.target``; SpecWorkerBase's defaults never see it."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        self.server_args = server_args
        self.target = target_worker

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        return self.target.forward_batch_generation(batch)


# expect: replay_specworkerbase_no_super.MindfulWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class MindfulWorker(SpecWorkerBase):
    """Hands the target to SpecWorkerBase."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


@SpeculativeAlgorithm.register("SHAPE_REPLAY_FORGETFUL", supports_overlap=True)
def _forgetful(server_args: ServerArgs) -> type:
    return ForgetfulWorker


@SpeculativeAlgorithm.register("SHAPE_REPLAY_MINDFUL", supports_overlap=True)
def _mindful(server_args: ServerArgs) -> type:
    return MindfulWorker
