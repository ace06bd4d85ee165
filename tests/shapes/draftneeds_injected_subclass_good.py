"""A kept default reads a member the injected draft subclass adds, through the bundle's ``TpModelWorker`` field.

``ListedRunnersDraft(TpModelWorker)`` adds ``draft_runners``; ``ListedRunnersSpecWorker``
injects it (``build_draft_tp_worker(..., draft_worker_cls=ListedRunnersDraft)``) and
keeps ``self._draft_worker = bundle.draft_worker``. The bundle declares that
field ``TpModelWorker``, but ``build_draft_tp_worker`` puts there what
``draft_worker_cls(...)`` built (speculative/draft_worker_common.py:
build_draft_tp_worker): a ``ListedRunnersDraft``. So the kept
``BaseSpecWorker.weight_update_runners`` (``draft_worker.draft_runners``) and
the defaults behind ``_draft_model_runners`` find it: the needs are read on
the injected class (``_harness/_draft_reads``), not on the declared field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: draftneeds_injected_subclass_good.ListedRunnersDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
# expect: draftneeds_injected_subclass_good.ListedRunnersDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class ListedRunnersDraft(TpModelWorker):
    """TpModelWorker's constructor; its one model runner as the draft runners the defaults read."""

    @property
    def draft_runners(self) -> list[ModelRunner]:
        return [self.model_runner]


# expect: draftneeds_injected_subclass_good.ListedRunnersSpecWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class ListedRunnersSpecWorker(BaseSpecWorker):
    """Keeps BaseSpecWorker's weight_update_runners, primary_draft_kv_pool and init_hicache_draft_plan."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_PAGED",
            draft_worker_cls=ListedRunnersDraft,
        )
        self._draft_worker = bundle.draft_worker

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
