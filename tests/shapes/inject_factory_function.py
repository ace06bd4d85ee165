"""Injected through a factory function: a function taking ``build_draft_tp_worker``'s eight keywords returns the draft worker.

``draft_worker_cls`` need not be a class: sglang only calls it. A function
with exactly the keywords of ``DraftWorkerFactory`` that returns a
``TpModelWorker`` is a correct injection, checked in place by mypy and
pyright.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.configs.load_config import LoadGroup
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: inject_factory_function.FactoryDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class FactoryDraft(TpModelWorker):
    """A pass-through draft worker, built by make_factory_draft."""


def make_factory_draft(
    *,
    server_args: ServerArgs,
    gpu_id: int,
    nccl_port: int,
    is_draft_worker: bool,
    random_seed: int | None,
    load_group: LoadGroup,
    context_length: int | None,
    draft_attention_backend: str | None,
) -> FactoryDraft:
    """Build the draft worker with exactly what build_draft_tp_worker passes."""
    return FactoryDraft(
        server_args,
        gpu_id,
        nccl_port,
        is_draft_worker=is_draft_worker,
        random_seed=random_seed,
        load_group=load_group,
        context_length=context_length,
        draft_attention_backend=draft_attention_backend,
    )


# expect: inject_factory_function.FactoryFunctionWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect: inject_factory_function.FactoryFunctionWorker.__init__:draft_worker_cls DraftWorkerFactory pass runtime=skipped mypy=pass pyright=pass
class FactoryFunctionWorker(BaseSpecWorker):
    """Injects make_factory_draft; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_FACTORY_FUNCTION",
            draft_worker_cls=make_factory_draft,
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
