"""A registered factory returns a builder function that cannot take the scheduler's call.

The failing twin of ``reg_builder_function_good``: ``_build_prefix_worker``
takes ``(server_args, target_worker)`` only, and the scheduler's
``DraftWorkerClass(**draft_worker_kwargs)`` (scheduler.py:
maybe_init_draft_worker) also passes ``gpu_id=`` and ``nccl_port=``:
``TypeError``. The problem is the builder's, reported on the class it builds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_builder_function_bad.PrefixCacheWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class PrefixCacheWorker(BaseSpecWorker):
    """Proposes from a prefix cache of the given capacity; no draft model."""

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
        return self.target_worker.forward_batch_generation(batch)


def _build_prefix_worker(server_args: ServerArgs, target_worker: TpModelWorker) -> PrefixCacheWorker:
    return PrefixCacheWorker(target_worker, capacity=4096)


def register() -> None:
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register("SHAPE_PREFIX_CACHE", supports_overlap=True)
    def _factory(server_args: ServerArgs) -> Callable[..., PrefixCacheWorker]:
        return _build_prefix_worker
