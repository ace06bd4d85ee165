"""A protocol demands a default only where a call site omits the argument.

sglang facts:
- ``Scheduler.init_memory_pools`` (managers/scheduler.py:1106, in 0.5.23; the
  same call in every supported release) is the spec worker's only
  ``alloc_memory_pool`` caller, and passes all three keywords:
  ``memory_pool_config=self.tp_worker.model_runner.memory_pool_config``
  (Optional) and the pair ``TpModelWorker.get_memory_pool()`` returns
  (``tuple[ReqToTokenPool, BaseTokenToKVPoolAllocator]``), so a worker whose
  three parameters have no default, typed as those values, takes the call;
- ``BaseSpecWorker.alloc_memory_pool`` (base_spec_worker.py:363) calls the
  draft's with all three keywords too, each its own argument (None by
  default), so a draft worker's need no default either, but must take None;
- a missing keyword is still an error: the call passes all three.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig

from spec_protocols import DraftWorker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class _Reads:
    def init_attention_backends(self) -> None: ...

    def init_cuda_graphs(self) -> None: ...

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


class NoDefaults(_Reads):
    def alloc_memory_pool(
        self,
        *,
        memory_pool_config: MemoryPoolConfig | None,
        req_to_token_pool: ReqToTokenPool | None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None,
    ) -> None: ...


class MissingKeyword(_Reads):
    def alloc_memory_pool(self, *, memory_pool_config: MemoryPoolConfig | None, req_to_token_pool: ReqToTokenPool | None) -> None: ...


def check(no_defaults: NoDefaults, missing: MissingKeyword) -> None:
    ok: DraftWorker = no_defaults
    del ok
    if TYPE_CHECKING_INVALID_USAGE:
        bad: DraftWorker = missing  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del bad
