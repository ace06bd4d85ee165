"""Forwarded parameter: a helper's ``draft_worker_cls=ForwardingDraft`` default is passed on unchanged to ``build_draft_tp_worker``.

``draft_worker_cls=draft_worker_cls`` inside ``_make_draft`` only forwards a
parameter; what is injected is the parameter's default (a plain class
reference, checked as a class) and whatever callers pass by keyword (here
none). Reporting the forwarding line as a site of its own would check an
unannotated parameter: an ``unverified`` that no one can fix.
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


# expect: inject_forwarding_wrapper.ForwardingDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
# expect: inject_forwarding_wrapper.ForwardingDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class ForwardingDraft(TpModelWorker):
    """A pass-through draft worker."""


# expect: inject_forwarding_wrapper.ForwardingWrapperWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect-absent: inject_forwarding_wrapper.ForwardingWrapperWorker._make_draft:draft_worker_cls
class ForwardingWrapperWorker(BaseSpecWorker):
    """Builds its draft through a helper with an overridable draft class; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = self._make_draft(server_args, gpu_id, nccl_port, target_worker)

    def _make_draft(
        self,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        target_worker: TpModelWorker,
        draft_worker_cls=ForwardingDraft,
    ) -> TpModelWorker:
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_FORWARDING",
            draft_worker_cls=draft_worker_cls,
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
