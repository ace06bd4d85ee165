"""The sglang names that the protocols mention, without importing sglang.

Type checkers see the real sglang classes: through ``stubs/`` (the partial
``sglang-stubs`` distribution) or, for modules the stubs do not cover, through
sglang's own source.

At runtime ``spec_protocols`` must not import sglang (nor torch, which sglang
imports eagerly): sglang imports this library, an IDE loads it instantly, and
``import spec_protocols`` stays far below the ~5 s that
``import sglang.srt.speculative.base_spec_worker`` costs. So at runtime each
name is bound to ``typing.Any``. That keeps ``typing.get_type_hints()`` working
on every public class, and it is honest: nothing here checks these types at
runtime; ``verify_conformance`` checks shapes (members, kinds, parameters),
and the static checkers check types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = [
    "BaseTokenToKVPoolAllocator",
    "DraftParallelLayout",
    "GenerationBatchResult",
    "HiCacheDraftPlan",
    "LoadGroup",
    "MemoryPoolConfig",
    "ModelConfig",
    "ModelRunner",
    "PPProxyTensors",
    "ReqToTokenPool",
    "SamplingPrewarmResult",
    "ScheduleBatch",
    "ServerArgs",
    "TpModelWorker",
]

if TYPE_CHECKING:
    from sglang.srt.configs.draft_parallel import DraftParallelLayout
    from sglang.srt.configs.load_config import LoadGroup
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
    from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
    from sglang.srt.model_executor.forward_batch_info import PPProxyTensors
    from sglang.srt.model_executor.model_runner import ModelRunner, SamplingPrewarmResult
    from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
    from sglang.srt.server_args import ServerArgs
    from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan
else:
    from typing import Any

    BaseTokenToKVPoolAllocator = Any
    DraftParallelLayout = Any
    GenerationBatchResult = Any
    HiCacheDraftPlan = Any
    LoadGroup = Any
    MemoryPoolConfig = Any
    ModelConfig = Any
    ModelRunner = Any
    PPProxyTensors = Any
    ReqToTokenPool = Any
    SamplingPrewarmResult = Any
    ScheduleBatch = Any
    ServerArgs = Any
    TpModelWorker = Any
