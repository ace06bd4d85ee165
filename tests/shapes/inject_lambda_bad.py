"""Injected through a lambda, bad: the lambda takes ``server_args, gpu_id, nccl_port`` and nothing else.

A lambda is the shortest way to adapt a constructor, and the easiest to get
wrong: ``build_draft_tp_worker`` passes eight keywords, five of which this
lambda does not accept. Its parameters are unannotated, but its arity is
known, so the checkers can still fail it.
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


# expect: inject_lambda_bad.LambdaDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class LambdaDraft(TpModelWorker):
    """A pass-through draft worker; only the lambda around it is wrong."""


# expect: inject_lambda_bad.LambdaWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
# expect: inject_lambda_bad.LambdaWorker.__init__:draft_worker_cls DraftWorkerFactory fail runtime=skipped mypy=fail pyright=fail
class LambdaWorker(BaseSpecWorker):
    """Injects a lambda that drops most of sglang's keywords; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_LAMBDA",
            draft_worker_cls=lambda server_args, gpu_id, nccl_port: LambdaDraft(server_args, gpu_id, nccl_port),
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
