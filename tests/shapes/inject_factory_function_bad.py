"""Injected through a factory function, bad: the function takes three of the eight keywords ``build_draft_tp_worker`` passes.

``make_bad_factory_draft(server_args=..., gpu_id=..., nccl_port=...)`` was
written against an older sglang; the call sglang 0.5.23 makes also passes
``is_draft_worker``, ``random_seed``, ``load_group``, ``context_length`` and
``draft_attention_backend``, so it raises ``TypeError``.
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


# expect: inject_factory_function_bad.FactoryBadDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class FactoryBadDraft(TpModelWorker):
    """A pass-through draft worker; only the factory around it is wrong."""


def make_bad_factory_draft(*, server_args: ServerArgs, gpu_id: int, nccl_port: int) -> FactoryBadDraft:
    """Build the draft worker from the three arguments an older sglang passed."""
    return FactoryBadDraft(server_args, gpu_id, nccl_port, is_draft_worker=True)


# expect: inject_factory_function_bad.FactoryFunctionBadWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
# expect: inject_factory_function_bad.FactoryFunctionBadWorker.__init__:draft_worker_cls DraftWorkerFactory fail runtime=skipped mypy=fail pyright=fail
class FactoryFunctionBadWorker(BaseSpecWorker):
    """Injects make_bad_factory_draft; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_FACTORY_FUNCTION_BAD",
            draft_worker_cls=make_bad_factory_draft,
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
