"""Mistake 2 of docs/authoring.md's worked example: a draft constructor that
``build_draft_tp_worker`` cannot call.

The constructor is written positionally, as ``TpModelWorker``'s is, and
leaves out ``draft_attention_backend``, which sglang 0.5.23 passes by
keyword: the call fails with ``TypeError`` once the target model is loaded.
"""

from __future__ import annotations

from collections.abc import Callable

from sglang.srt.configs.load_config import LoadGroup
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


class PositionalDraftWorker(TpModelWorker):
    def __init__(
        self,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool,
        random_seed: int | None,
        load_group: LoadGroup,
        context_length: int | None,
    ) -> None:
        super().__init__(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            is_draft_worker=is_draft_worker,
            random_seed=random_seed,
            load_group=load_group,
            context_length=context_length,
        )


class PositionalDraftSpecWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_runner.model_config,
            algo_label="TINY_DRAFT",
            draft_worker_cls=PositionalDraftWorker,
            random_seed=target_worker.random_seed,
        )
        self._draft_worker = bundle.draft_worker
        self.draft_model_runner: ModelRunner = bundle.draft_model_runner

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return [("draft", self.draft_model_runner)]

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        return (self.draft_model_runner,)

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
