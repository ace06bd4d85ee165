"""Injected expression the checkers see as ``Any``: ``draft_worker_cls=self._cls``, set from an unannotated parameter.

``_build_draft(self, draft_cls, ...)`` leaves ``draft_cls`` unannotated, so
``self._cls`` is ``Any`` to mypy and ``Unknown`` to pyright. Either checker
would accept anything there: a pass would be vacuous, so the site is
``unverified`` for both (and fails the gate until the parameter is typed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: inject_any.AnyDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
# expect: inject_any.AnyDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
class AnyDraft(TpModelWorker):
    """A pass-through draft worker."""


# expect: inject_any.AnyInjectWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect: inject_any.AnyInjectWorker._build_draft:draft_worker_cls DraftWorkerFactory unverified runtime=skipped mypy=unverified pyright=unverified
class AnyInjectWorker(BaseSpecWorker):
    """Builds its draft through a helper whose class parameter is untyped; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = self._build_draft(AnyDraft, server_args, gpu_id, nccl_port, target_worker)

    def _build_draft(
        self, draft_cls, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker
    ) -> TpModelWorker:
        self._cls = draft_cls
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_ANY",
            draft_worker_cls=self._cls,
        )
        return bundle.draft_worker

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        # The draft is a TpModelWorker: it has no draft_runners for
        # BaseSpecWorker's default to read.
        return []

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        # Nor for this one's (behind primary_draft_kv_pool and
        # init_hicache_draft_plan), which reads them for a plugin's algorithm.
        return ()

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
