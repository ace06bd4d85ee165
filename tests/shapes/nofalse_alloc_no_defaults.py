"""``alloc_memory_pool`` with three required keywords: no call site omits one.

The spec worker's only ``alloc_memory_pool`` caller is
``Scheduler.init_memory_pools`` (managers/scheduler.py:1106 in 0.5.23; the
same call in every supported release), which always passes
``memory_pool_config=``, ``req_to_token_pool=`` and
``token_to_kv_pool_allocator=`` (the target model runner's config, and
``TpModelWorker.get_memory_pool()``'s pair). A worker that requires all three,
typed as those values, takes the call: the protocol demands no default, and
every checker passes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
    from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
    from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
    from sglang.srt.server_args import ServerArgs


# expect: nofalse_alloc_no_defaults.SharedPoolWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class SharedPoolWorker(BaseSpecWorker):
    """Runs the target model alone and adopts the target's token pools."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def alloc_memory_pool(
        self,
        *,
        memory_pool_config: MemoryPoolConfig | None,
        req_to_token_pool: ReqToTokenPool,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator,
    ) -> None:
        del memory_pool_config
        self.req_to_token_pool = req_to_token_pool
        self.token_to_kv_pool_allocator = token_to_kv_pool_allocator

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
