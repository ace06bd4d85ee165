"""A kept default reads a member the injected draft subclass does not add.

The failing twin of ``draftneeds_injected_subclass_good``: ``PagedDraft``
defines no ``draft_runners``, so the kept ``weight_update_runners`` raises
``AttributeError`` reading ``draft_worker.draft_runners``
(base_spec_worker.py: BaseSpecWorker.weight_update_runners), as do the
defaults behind ``_draft_model_runners``: the needs read on the injected
class fail, as they fail on the bundle's declared ``TpModelWorker``.
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


# expect: draftneeds_injected_subclass_bad.PagedDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
# expect: draftneeds_injected_subclass_bad.PagedDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class PagedDraft(TpModelWorker):
    """TpModelWorker's constructor, and a name for its one model runner (not draft_runners)."""

    @property
    def paged_runner(self) -> ModelRunner:
        return self.model_runner


# expect: draftneeds_injected_subclass_bad.PagedSpecWorker SpecWorker fail runtime=any mypy=fail pyright=fail member=weight_update_runners
class PagedSpecWorker(BaseSpecWorker):
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
            draft_worker_cls=PagedDraft,
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
