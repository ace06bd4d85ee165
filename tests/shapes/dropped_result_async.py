"""A method whose result sglang drops may return anything but a coroutine.

The scheduler calls ``init_cuda_graphs()`` as a statement
(``Scheduler.init_all_cuda_graphs``, managers/scheduler.py, 0.5.23) and never
reads what it returns: a worker that returns whether it captured anything
works. An ``async def`` there makes a coroutine that nobody awaits, so the
graphs are never captured.
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


class _Forwarding(SpecWorkerBase):
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


# expect: dropped_result_async.ReportsCapture SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class ReportsCapture(_Forwarding):
    """Returns whether it captured a graph; sglang ignores the answer."""

    def init_cuda_graphs(self) -> bool:
        return False


# expect: dropped_result_async.AsyncCapture SpecWorker fail runtime=fail replay=fail mypy=fail pyright=fail
class AsyncCapture(_Forwarding):
    """Captures in a coroutine that the scheduler never awaits."""

    async def init_cuda_graphs(self) -> None:
        return None


@SpeculativeAlgorithm.register("SHAPE_DROPPED_RESULT_BOOL", supports_overlap=True)
def _reports(server_args: ServerArgs) -> type:
    return ReportsCapture


@SpeculativeAlgorithm.register("SHAPE_DROPPED_RESULT_ASYNC", supports_overlap=True)
def _async(server_args: ServerArgs) -> type:
    return AsyncCapture
