"""A registered factory returns a builder function, not a class.

``SpeculativeAlgorithm.register("SHAPE_SUFFIX_CACHE")`` decorates a factory
that returns ``_build_suffix_worker``, a function taking the scheduler's
keywords and returning ``SuffixCacheWorker(target_worker, capacity=...)``.
``Scheduler.maybe_init_draft_worker`` calls what ``create_worker`` returns
with its keywords (``DraftWorkerClass(**draft_worker_kwargs)``,
scheduler.py), so the builder takes that call; the class's own constructor
(no ``server_args=``) is the builder's business. The constructor check is
made of the builder (``Registration.builder``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_builder_function_good.SuffixCacheWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class SuffixCacheWorker(BaseSpecWorker):
    """Proposes from a suffix cache of the given capacity; no draft model."""

    def __init__(self, target_worker: TpModelWorker, capacity: int) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        self.capacity = capacity

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


def _build_suffix_worker(*, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> SuffixCacheWorker:
    return SuffixCacheWorker(target_worker, capacity=4096)


def register() -> None:
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register("SHAPE_SUFFIX_CACHE", supports_overlap=True)
    def _factory(server_args: ServerArgs) -> Callable[..., SuffixCacheWorker]:
        return _build_suffix_worker
