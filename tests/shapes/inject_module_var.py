"""Injected through a module alias: ``DRAFT_WORKER_CLS = ModuleVarDraft`` is passed as ``draft_worker_cls``.

Plugins keep the draft class in a module-level name so that a config switch
or a test can swap it. The name is a plain class reference, so the gate
checks the class it names, as the constructor ``build_draft_tp_worker`` calls
(``DraftWorkerFactory``) and as a draft worker (``DraftWorker``). The test
also passes this file twice to prove the gate de-duplicates targets.
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


# expect: inject_module_var.ModuleVarDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
# expect: inject_module_var.ModuleVarDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class ModuleVarDraft(TpModelWorker):
    """A pass-through draft worker: TpModelWorker's constructor and members."""


DRAFT_WORKER_CLS = ModuleVarDraft


# expect: inject_module_var.ModuleVarWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class ModuleVarWorker(BaseSpecWorker):
    """Builds its draft model from DRAFT_WORKER_CLS; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_MODULE_VAR",
            draft_worker_cls=DRAFT_WORKER_CLS,
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
