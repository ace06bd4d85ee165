"""Mistake 3 of docs/authoring.md's worked example: a ``TpModelWorker`` draft
with ``BaseSpecWorker``'s ``weight_update_runners`` and ``primary_draft_kv_pool`` kept.

``weight_update_runners`` returns ``[("draft", r) for r in
self.draft_worker.draft_runners]``; ``primary_draft_kv_pool`` and
``init_hicache_draft_plan`` go through ``_draft_model_runners()``, which
returns ``tuple(draft_worker.draft_runners)`` for a plugin's algorithm. A
``TpModelWorker`` has no ``draft_runners``: the server raises
``AttributeError`` at start (``Scheduler.init_disaggregation`` reads
``primary_draft_kv_pool``), or else at the first weight update. Nothing in
this file calls them.
"""

from __future__ import annotations

from collections.abc import Callable

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


class KeptRunnersWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_runner.model_config,
            algo_label="TINY_DRAFT",
            random_seed=target_worker.random_seed,
        )
        self._draft_worker: TpModelWorker = bundle.draft_worker

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
