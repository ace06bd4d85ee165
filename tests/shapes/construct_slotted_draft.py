"""An injected structural draft worker with ``__slots__`` and no ``__dict__``.

A compact facade over an inner ``TpModelWorker``, slotted to keep instances
small. ``build_draft_tp_worker`` assigns ``draft_worker.draft_runner = ...``
on what it built (speculative/draft_worker_common.py): with ``__slots__`` all
the way down to ``object`` and no ``draft_runner`` slot, that raises
``AttributeError``. (A slotted *subclass* of ``TpModelWorker`` still has a
``__dict__``, from ``TpModelWorker``, and is fine.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.draft_worker_common import DraftWorkerBundle, build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.configs.load_config import LoadGroup
    from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
    from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: construct_slotted_draft.SlottedFacadeDraft DraftWorkerFactory fail runtime=fail mypy=any pyright=any member=draft_runner runtime-decides
class SlottedFacadeDraft:
    """Delegates every member to an inner TpModelWorker."""

    __slots__ = ("_inner",)

    def __init__(
        self,
        *,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool,
        random_seed: int | None,
        load_group: LoadGroup,
        context_length: int | None,
        draft_attention_backend: str | None,
    ) -> None:
        self._inner = TpModelWorker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            is_draft_worker=is_draft_worker,
            random_seed=random_seed,
            load_group=load_group,
            context_length=context_length,
            draft_attention_backend=draft_attention_backend,
        )

    @property
    def model_runner(self) -> ModelRunner:
        return self._inner.model_runner

    def alloc_memory_pool(
        self,
        memory_pool_config: Any = None,
        req_to_token_pool: ReqToTokenPool | None = None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
    ) -> None:
        self._inner.alloc_memory_pool(
            memory_pool_config=memory_pool_config,
            req_to_token_pool=req_to_token_pool,
            token_to_kv_pool_allocator=token_to_kv_pool_allocator,
        )

    def init_attention_backends(self) -> None:
        self._inner.init_attention_backends()

    def init_cuda_graphs(self) -> None:
        self._inner.init_cuda_graphs()

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        return self._inner.graph_memory_usage

    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        return self._inner.graph_time_usage

    @property
    def weight_load_time(self) -> float:
        return self._inner.weight_load_time

    @property
    def preloaded_weights_bytes(self) -> int:
        return self._inner.preloaded_weights_bytes


def build_slotted_draft(server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> DraftWorkerBundle:
    return build_draft_tp_worker(
        server_args=server_args,
        gpu_id=gpu_id,
        nccl_port=nccl_port,
        target_model_config=target_worker.model_runner.model_config,
        algo_label="SLOTTED",
        draft_worker_cls=SlottedFacadeDraft,  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
        random_seed=target_worker.random_seed,
    )
