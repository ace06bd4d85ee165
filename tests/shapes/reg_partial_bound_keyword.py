"""``create_worker`` wraps the worker in ``functools.partial`` binding a required keyword.

``Scheduler.maybe_init_draft_worker`` (managers/scheduler.py) builds what
``self.spec_algorithm.create_worker(server_args)`` returns with
``server_args=, gpu_id=, nccl_port=, target_worker=``; the partial supplies
the keyword-only ``window`` the class requires, so construction works. The
class alone could not take the scheduler's call, but sglang never calls it
alone.
"""

from __future__ import annotations

import functools
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
# expect: reg_partial_bound_keyword.WindowedAlgo SpecAlgorithm pass runtime=pass replay=pass mypy=pass pyright=pass
class WindowedAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    def create_worker(self, server_args: ServerArgs) -> Any:
        worker_cls = super().create_worker(server_args)
        return functools.partial(worker_cls, window=getattr(server_args, "speculative_num_steps", None) or 3)


# expect: reg_partial_bound_keyword.PartialWindowWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class PartialWindowWorker(BaseSpecWorker):
    def __init__(
        self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker, *, window: int
    ) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        self.window = window

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, on_publish: Callable[..., Any] | None = None
    ) -> GenerationBatchResult:
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


@SpeculativeAlgorithm.register("SHAPE_REG_PARTIAL_WINDOW", supports_overlap=True, spec_class=WindowedAlgo)
def _windowed(server_args: ServerArgs) -> type:
    return PartialWindowWorker
