"""A spec worker builds its draft in a helper method, with a draft class that takes the factory's call.

The passing twin of ``injected_helper_method_bad``: ``KeywordRollingDraft``
takes ``build_draft_tp_worker``'s keywords (``server_args=``, ``gpu_id=``,
``nccl_port=`` by name, the rest through ``**kwargs`` on to
``TpModelWorker.__init__``: speculative/draft_worker_common.py:
build_draft_tp_worker), so the spec worker that injects it passes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import DraftWorkerBundle, build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: injected_helper_method_good.KeywordRollingDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
# expect: injected_helper_method_good.KeywordRollingDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class KeywordRollingDraft(TpModelWorker):
    """Takes build_draft_tp_worker's keywords as TpModelWorker does, and passes them on."""

    def __init__(self, *, server_args: ServerArgs, gpu_id: int, nccl_port: int, **kwargs: Any) -> None:
        super().__init__(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port, **kwargs)


# expect: injected_helper_method_good.KeywordRollingWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class KeywordRollingWorker(BaseSpecWorker):
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
            draft_worker_cls=KeywordRollingDraft,
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
