"""Injected through a conditional expression, bad in one branch: ``FastDraft if flag else SafeDraft``.

Which class sglang constructs depends on a runtime flag, so both must take
the call ``build_draft_tp_worker`` makes. mypy and pyright type the
expression as the union ``type[ConditionalFastDraft] | type[ConditionalSafeDraft]``
and fail it because one member of the union does not; a check of the class
the flag happens to select would pass or fail by luck.
"""

from __future__ import annotations

import os
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


# expect: inject_conditional_bad.ConditionalFastDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
# expect: inject_conditional_bad.ConditionalFastDraft DraftWorkerFactory fail runtime=fail mypy=fail pyright=fail
class ConditionalFastDraft(TpModelWorker):
    """The experimental draft worker: only wants the server arguments."""

    def __init__(self, server_args: ServerArgs) -> None:
        super().__init__(server_args, gpu_id=0, nccl_port=0, is_draft_worker=True)


# expect: inject_conditional_bad.ConditionalSafeDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
# expect: inject_conditional_bad.ConditionalSafeDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
class ConditionalSafeDraft(TpModelWorker):
    """The default draft worker: TpModelWorker's constructor."""


# expect: inject_conditional_bad.ConditionalWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
# expect: inject_conditional_bad.ConditionalWorker.__init__:draft_worker_cls DraftWorkerFactory fail runtime=skipped mypy=fail pyright=fail
class ConditionalWorker(BaseSpecWorker):
    """Picks its draft class from an environment flag; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        use_fast_draft = os.environ.get("SPEC_SHAPES_FAST_DRAFT") == "1"
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_CONDITIONAL",
            draft_worker_cls=ConditionalFastDraft if use_fast_draft else ConditionalSafeDraft,
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
