"""Injected through ``functools.partial``, bad: the partial fills ``num_steps`` but the constructor still lacks ``gpu_id`` and the rest.

``functools.partial(PartialBadDraft, num_steps=4)`` is called by
``build_draft_tp_worker`` with ``gpu_id=``, ``nccl_port=`` and five more
keywords that ``PartialBadDraft.__init__`` does not take: ``TypeError`` at
server start. Comparing typeshed's gradual ``partial.__call__`` with the
protocol would pass it; checking the call itself fails it.
"""

from __future__ import annotations

import functools
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


# expect: inject_partial_bad.PartialBadDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class PartialBadDraft(TpModelWorker):
    """A draft worker that wants the server arguments and the number of draft steps, nothing else."""

    def __init__(self, server_args: ServerArgs, *, num_steps: int) -> None:
        super().__init__(server_args, gpu_id=0, nccl_port=0, is_draft_worker=True)
        self.num_steps = num_steps


# expect: inject_partial_bad.PartialBadWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
# expect: inject_partial_bad.PartialBadWorker.__init__:draft_worker_cls DraftWorkerFactory fail runtime=skipped mypy=fail pyright=fail
class PartialBadWorker(BaseSpecWorker):
    """Injects a partial of a draft class whose constructor sglang cannot call."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_PARTIAL_BAD",
            draft_worker_cls=functools.partial(PartialBadDraft, num_steps=4),
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
