"""Kept ``primary_draft_kv_pool`` with a ``TpModelWorker`` draft: ``weight_update_runners`` is overridden, the KV-pool default is not.

sglang 0.5.23's ``BaseSpecWorker.primary_draft_kv_pool``, which the scheduler
reads at every start (``Scheduler.init_disaggregation``), calls
``_draft_model_runners()``: ``(draft_worker.model_runner,)`` for the DFlash
family, ``tuple(draft_worker.draft_runners)`` for every algorithm no built-in
predicate names -- a plugin's, registered through ``spec_registry``, whose
``CustomSpecAlgo`` answers False to each ``is_<algo>()``. A ``TpModelWorker``
has no ``draft_runners``: ``AttributeError`` at server start.
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


# expect: kept_draft_kv_pool.KeptKvPoolWorker SpecWorker fail runtime=pass mypy=fail pyright=fail member=primary_draft_kv_pool
class KeptKvPoolWorker(BaseSpecWorker):
    """Builds a plain TpModelWorker draft; answers weight updates itself, keeps the KV-pool default."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_KEPT_KV_POOL",
        )
        self._draft_worker: TpModelWorker = bundle.draft_worker
        self.draft_model_runner: ModelRunner = bundle.draft_model_runner

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return [("draft", self.draft_model_runner)]

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
