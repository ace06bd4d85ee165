"""A worker marked with ``@spec_worker_class`` and no base at all: structural, and correct.

Nothing nominal says this class is a spec worker (no ``BaseSpecWorker``, no
``SpecWorkerBase``, no registration in this file): the decorator is the
author's word that sglang's scheduler constructs it, so the gate checks it as
one. Without ``BaseSpecWorker`` it gets none of that base's defaults, so it
defines every member the scheduler calls or reads (its own no-draft
versions, as NGRAM's worker has no draft model), and the hooks the scheduler
reaches behind ``getattr``/``hasattr`` are its to leave out. The decorator
comes in through an alias of the package (``import spec_protocols as sp``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import spec_protocols as sp

if TYPE_CHECKING:
    from sglang.srt.configs.draft_parallel import DraftParallelLayout
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
    from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
    from sglang.srt.model_executor.model_runner import ModelRunner, SamplingPrewarmResult
    from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
    from sglang.srt.server_args import ServerArgs
    from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan


# expect: decorated_baseless_good.DecoratedPlainWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
@sp.spec_worker_class
class DecoratedPlainWorker:
    """Runs the target model alone, with no draft model and no sglang base."""

    draft_parallel_layout: DraftParallelLayout | None = None

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        self.server_args = server_args
        self._target_worker = target_worker
        self._plan: HiCacheDraftPlan | None = None

    def alloc_memory_pool(
        self,
        *,
        memory_pool_config: MemoryPoolConfig | None,
        req_to_token_pool: ReqToTokenPool,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator,
    ) -> None:
        del memory_pool_config, req_to_token_pool, token_to_kv_pool_allocator

    def init_hicache_draft_plan(self) -> None:
        from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan

        self._plan = HiCacheDraftPlan()

    @property
    def hicache_draft_plan(self) -> HiCacheDraftPlan:
        from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan

        return self._plan if self._plan is not None else HiCacheDraftPlan()

    def init_attention_backends(self) -> None:
        pass

    def init_cuda_graphs(self) -> None:
        pass

    def clear_cache_pool(self) -> None:
        pass

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self._target_worker.forward_batch_generation(batch)

    def on_verify_complete_cpu(self, num_correct_drafts_per_req: list[int], /, *, batch_size: int) -> None:
        del num_correct_drafts_per_req, batch_size

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        return {}

    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        return {}

    @property
    def weight_load_time(self) -> float:
        return 0.0

    @property
    def preloaded_weights_bytes(self) -> int:
        return 0

    @property
    def primary_draft_kv_pool(self) -> object:
        return None

    @property
    def last_shared_read_runner(self) -> ModelRunner:
        return self._target_worker.model_runner

    def prewarm_sampling(self) -> SamplingPrewarmResult:
        return self._target_worker.model_runner.prewarm_sampling()

    def weight_update_runners(self) -> Iterable[tuple[str, ModelRunner]]:
        return []

    @property
    def draft_swa_window(self) -> int:
        return 0
