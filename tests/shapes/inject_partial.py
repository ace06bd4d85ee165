"""Injected through ``functools.partial``: the partial supplies the draft constructor's one extra required argument.

``functools.partial(PartialDraft, num_steps=4)`` is what plugins write when
their draft class needs a setting ``build_draft_tp_worker`` does not pass.
Here the partial fills it, so the call sglang makes succeeds. The gate checks
the expression in place; a check that compares typeshed's
``partial.__call__(*args: Any, **kwargs: Any)`` with the protocol is vacuous
(it accepts any partial), so only a check of the call itself is a true pass.
"""

from __future__ import annotations

import functools
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


# expect: inject_partial.PartialDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class PartialDraft(TpModelWorker):
    """A draft worker that also needs the number of draft steps."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, *, num_steps: int, **kwargs: Any) -> None:
        super().__init__(server_args, gpu_id, nccl_port, **kwargs)
        self.num_steps = num_steps


# expect: inject_partial.PartialWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect: inject_partial.PartialWorker.__init__:draft_worker_cls DraftWorkerFactory pass runtime=skipped mypy=pass pyright=pass
class PartialWorker(BaseSpecWorker):
    """Injects a partial of its draft class; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_PARTIAL",
            draft_worker_cls=functools.partial(PartialDraft, num_steps=4),
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
