"""Injected class defined inside ``__init__``, bad constructor.

A class created in a function body is a new class on every call and cannot
be imported, so neither discovery nor the runtime checker can reach it as
``module.Class``. The gate checks the injection in place: mypy and pyright
know the local class's constructor, which takes only ``server_args``.
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


# expect: inject_local_class_bad.LocalClassWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
# expect: inject_local_class_bad.LocalClassWorker.__init__:draft_worker_cls DraftWorkerFactory fail runtime=skipped mypy=fail pyright=fail
class LocalClassWorker(BaseSpecWorker):
    """Defines its draft class on the fly, closing over the target worker; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker

        class LocalBadDraft(TpModelWorker):
            """Shares the target's port; takes only the server arguments."""

            def __init__(self, server_args: ServerArgs) -> None:
                super().__init__(server_args, gpu_id=gpu_id, nccl_port=nccl_port, is_draft_worker=True)

        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_LOCAL_CLASS",
            draft_worker_cls=LocalBadDraft,
        )
        self._draft_worker = bundle.draft_worker

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
