"""A spec worker builds its draft in a helper method, with a draft class whose constructor is too short.

``RollingDraftWorker.__init__`` calls ``self._load_draft(...)``, which calls
``build_draft_tp_worker(..., draft_worker_cls=PositionalRollingDraft)``.
``PositionalRollingDraft.__init__`` has no ``load_group``, which
``build_draft_tp_worker`` passes (speculative/draft_worker_common.py:
``draft_worker_cls(server_args=..., ..., load_group=..., ...)``): the
``TypeError`` ends the spec worker's own constructor, which the scheduler runs
(scheduler.py: ``maybe_init_draft_worker``). So the spec worker fails too,
though each checker passes its members: the gate's own problem names the
injected class, whose ``DraftWorkerFactory`` row says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import DraftWorkerBundle, build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: injected_helper_method_bad.PositionalRollingDraft DraftWorkerFactory fail runtime=fail mypy=fail pyright=fail member=__init__
# expect: injected_helper_method_bad.PositionalRollingDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class PositionalRollingDraft(TpModelWorker):
    """Written against TpModelWorker's positional constructor of an older release."""

    def __init__(
        self,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool = True,
        random_seed: Optional[int] = None,
        context_length: Optional[int] = None,
        draft_attention_backend: Optional[str] = None,
    ) -> None:
        super().__init__(
            server_args,
            gpu_id,
            nccl_port,
            is_draft_worker=is_draft_worker,
            random_seed=random_seed,
            context_length=context_length,
            draft_attention_backend=draft_attention_backend,
        )


# expect: injected_helper_method_bad.RollingDraftWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
class RollingDraftWorker(BaseSpecWorker):
    """Builds its draft model in a helper; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        bundle = self._load_draft(server_args, gpu_id, nccl_port, target_worker)
        self._draft_worker = bundle.draft_worker

    def _load_draft(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> DraftWorkerBundle:
        return build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_ROLLING",
            draft_worker_cls=PositionalRollingDraft,
        )

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        # The draft is a TpModelWorker: no draft_runners for the base's default to read.
        return []

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        return ()

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
