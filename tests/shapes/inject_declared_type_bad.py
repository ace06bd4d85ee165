"""A class attribute typed as sglang types the parameter hides the class injected.

``draft_cls: type[TpModelWorker] = ShortCtorDraft`` lets subclasses and
tests swap the draft class; ``__init__`` injects
``draft_worker_cls=self.draft_cls``. To mypy and pyright the expression is
``type[TpModelWorker]``, which takes ``build_draft_tp_worker``'s call
(speculative/draft_worker_common.py: ``draft_worker_cls(server_args=...,
..., load_group=..., context_length=..., draft_attention_backend=...)``); the
value is ``ShortCtorDraft``, whose constructor has no ``load_group``:
``TypeError`` at server start. Discovery follows the attribute to the class
it holds and checks that class's construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: inject_declared_type_bad.ShortCtorDraft DraftWorkerFactory fail runtime=fail mypy=fail pyright=fail
# expect: inject_declared_type_bad.ShortCtorDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class ShortCtorDraft(TpModelWorker):
    """Written against an older, positional TpModelWorker constructor."""

    def __init__(
        self,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool = True,
        context_length: Optional[int] = None,
        draft_attention_backend: Optional[str] = None,
        random_seed: Optional[int] = None,
    ) -> None:
        super().__init__(
            server_args,
            gpu_id,
            nccl_port,
            is_draft_worker=is_draft_worker,
            context_length=context_length,
            draft_attention_backend=draft_attention_backend,
            random_seed=random_seed,
        )


# expect: inject_declared_type_bad.SwappableDraftWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
# expect-absent: inject_declared_type_bad.SwappableDraftWorker.__init__:draft_worker_cls
class SwappableDraftWorker(BaseSpecWorker):
    """Builds its draft from the class attribute; runs the target model alone."""

    draft_cls: type[TpModelWorker] = ShortCtorDraft

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_DECLARED",
            draft_worker_cls=self.draft_cls,
        )
        self._draft_worker = bundle.draft_worker
        self.draft_model_runner: ModelRunner = bundle.draft_model_runner

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return [("draft", self.draft_model_runner)]

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        # A TpModelWorker draft has no draft_runners for BaseSpecWorker's default to read.
        return (self.draft_model_runner,)

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, on_publish: Callable[..., Any] | None = None, pp_proxy_tensors: Any = None
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
