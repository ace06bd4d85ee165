"""The stubbed ``TpModelWorker`` lifecycle: exact parameters and result types.

sglang facts (sglang 0.5.23, sglang/srt/managers/tp_worker.py):
- ``alloc_memory_pool(memory_pool_config=None, req_to_token_pool=None,
  token_to_kv_pool_allocator=None, *, draft_parallel_layout=None)``:
  ``draft_parallel_layout`` is keyword-only.
- ``init_cuda_graphs(capture_decode_cuda_graph: bool = True)``;
  ``EagleDraftWorkerBase.init_cuda_graphs`` calls it with
  ``capture_decode_cuda_graph=False``.
- ``graph_memory_usage``/``graph_time_usage`` are ``dict[str, float]``,
  ``weight_load_time`` a ``float``, ``preloaded_weights_bytes`` an ``int``,
  all properties (read-only).
- ``weight_update_runners()`` returns ``[("target", runner)]`` and
  ``get_memory_pool()`` the ``(ReqToTokenPool, BaseTokenToKVPoolAllocator)``
  pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.configs.draft_parallel import DraftParallelLayout
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
from sglang.srt.model_executor.model_runner import ModelRunner
from typing_extensions import assert_type

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


def lifecycle(worker: TpModelWorker, layout: DraftParallelLayout, batch: ScheduleBatch) -> None:
    assert_type(worker.alloc_memory_pool(None, None, None, draft_parallel_layout=layout), None)
    assert_type(worker.init_attention_backends(), None)
    assert_type(worker.init_cuda_graphs(), None)
    assert_type(worker.init_cuda_graphs(capture_decode_cuda_graph=False), None)
    assert_type(worker.graph_memory_usage, dict[str, float])
    assert_type(worker.graph_time_usage, dict[str, float])
    assert_type(worker.weight_load_time, float)
    assert_type(worker.preloaded_weights_bytes, int)
    assert_type(worker.model_runner, ModelRunner)
    assert_type(worker.weight_update_runners(), list[tuple[str, ModelRunner]])
    assert_type(worker.get_memory_pool(), tuple[ReqToTokenPool, BaseTokenToKVPoolAllocator])
    assert_type(worker.forward_batch_generation(batch), GenerationBatchResult)

    if TYPE_CHECKING_INVALID_USAGE:
        # draft_parallel_layout is keyword-only.
        worker.alloc_memory_pool(None, None, None, layout)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
        # The flag is a bool, not a batch size.
        worker.init_cuda_graphs(capture_decode_cuda_graph="no")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
        # Properties are read-only.
        worker.weight_load_time = 1.0  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
