"""A member only the overlap loops use, on a worker whose algorithm never runs them.

sglang 0.5.23 reads ``last_shared_read_runner`` in ``Scheduler._apply_war_barrier``
(managers/scheduler.py) and ``_war_barrier_is_coarse`` (disaggregation/prefill.py),
which only ``event_loop_overlap`` and the PD overlap loops call;
``_dispatch_event_loop_once`` starts those only under ``scheduler.enable_overlap``.
An algorithm registered with ``supports_overlap=False`` never runs with overlap
scheduling (``CustomSpecAlgo.create_worker`` refuses it), so a worker without the
member works there. The same class registered for overlap scheduling fails on it.
Neither derives from ``BaseSpecWorker``, whose default would supply the member.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.configs.draft_parallel import DraftParallelLayout
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs
    from sglang.srt.speculative.base_spec_worker import HiCacheDraftPlan


class _NoWarBarrier:
    """Everything sglang 0.5.23 uses of a spec worker but ``last_shared_read_runner``."""

    draft_parallel_layout: DraftParallelLayout | None = None
    draft_swa_window: int = 0
    primary_draft_kv_pool: object | None = None
    graph_memory_usage: dict[str, float] = {}
    graph_time_usage: dict[str, float] = {}
    weight_load_time: float = 0.0
    preloaded_weights_bytes: int = 0

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        self._target = target_worker

    @property
    def target_worker(self) -> TpModelWorker:
        return self._target

    @property
    def draft_worker(self) -> None:
        return None

    @property
    def model_runner(self) -> ModelRunner:
        return self._target.model_runner

    @property
    def hicache_draft_plan(self) -> HiCacheDraftPlan | None:
        return None

    def alloc_memory_pool(self, memory_pool_config: Any = None, req_to_token_pool: Any = None, token_to_kv_pool_allocator: Any = None) -> None:
        pass

    def init_hicache_draft_plan(self) -> None:
        pass

    def init_attention_backends(self) -> None:
        pass

    def init_cuda_graphs(self) -> None:
        pass

    def prewarm_sampling(self) -> None:
        pass

    def on_verify_complete_cpu(self, counts: Any, batch_size: int = 0) -> None:
        pass

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return []

    def clear_cache_pool(self) -> None:
        pass


# expect: reg_overlap_only_member.SyncNoBarrierWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class SyncNoBarrierWorker(_NoWarBarrier):
    """Registered synchronous: the synchronous loop's call, and no WAR barrier runner."""

    def forward_batch_generation(self, batch: ScheduleBatch, *, pp_proxy_tensors: Any = None) -> GenerationBatchResult:
        return self._target.forward_batch_generation(batch)


# expect: reg_overlap_only_member.OverlapNoBarrierWorker SpecWorker fail runtime=fail replay=fail mypy=fail pyright=fail member=last_shared_read_runner
class OverlapNoBarrierWorker(_NoWarBarrier):
    """Registered for overlap scheduling: the overlap loops read last_shared_read_runner."""

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, on_publish: Any = None, pp_proxy_tensors: Any = None
    ) -> GenerationBatchResult:
        return self._target.forward_batch_generation(batch)


@SpeculativeAlgorithm.register("SHAPE_REG_SYNC_NO_BARRIER", supports_overlap=False)
def _sync(server_args: ServerArgs) -> type:
    return SyncNoBarrierWorker


@SpeculativeAlgorithm.register("SHAPE_REG_OVERLAP_NO_BARRIER", supports_overlap=True)
def _overlap(server_args: ServerArgs) -> type:
    return OverlapNoBarrierWorker
