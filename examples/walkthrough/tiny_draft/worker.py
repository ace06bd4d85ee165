"""``TinyDraftSpecWorker``: the speculative worker sglang's scheduler drives for ``TINY_DRAFT``.

What a ``BaseSpecWorker`` subclass owes besides its own members (see
docs/authoring.md, "Obligations"): ``__init__`` sets ``_target_worker`` and
``_draft_worker``; ``forward_batch_generation`` is written; and every kept
default that would read what a ``TpModelWorker`` draft lacks is overridden:
``weight_update_runners`` and ``_draft_model_runners`` (behind
``primary_draft_kv_pool`` and ``init_hicache_draft_plan``) both end in
``draft_worker.draft_runners`` for an algorithm sglang does not know.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.eagle_info import EagleDraftInput

from tiny_draft.draft import TinyDraftWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs

__all__ = ["TinyDraftSpecWorker"]


class TinyDraftSpecWorker(BaseSpecWorker):
    """Speculative worker for ``TINY_DRAFT``: the target worker plus an injected ``TinyDraftWorker``."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_runner.model_config,
            algo_label="TINY_DRAFT",
            draft_worker_cls=TinyDraftWorker,
            random_seed=target_worker.random_seed,
        )
        self._draft_worker = bundle.draft_worker
        self.draft_model_runner: ModelRunner = bundle.draft_model_runner

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        # BaseSpecWorker's reads draft_worker.draft_runners (sglang's DFlash
        # worker, whose draft is a TpModelWorker too, does the same as here).
        return [("draft", self.draft_model_runner)]

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        # BaseSpecWorker's returns tuple(draft_worker.draft_runners) for every
        # algorithm but NGRAM, FROZEN_KV_MTP and the DFlash family, so for a
        # registered plugin's; primary_draft_kv_pool (read at start-up by
        # Scheduler.init_disaggregation) and init_hicache_draft_plan go through
        # it. This is the DFlash family's branch.
        return (self.draft_model_runner,)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        # The algorithm proper (draft with self.draft_worker, verify with the
        # target) needs a GPU; this runs the target alone, which is always
        # correct: nothing drafted, nothing rejected.
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        # The target's own result has no draft input; on the overlap loop the
        # scheduler relays it and makes it the batch's spec_info (0.5.23:
        # managers/scheduler.py:4752-4756), so an empty one goes back.
        result.next_draft_input = EagleDraftInput()
        return result
