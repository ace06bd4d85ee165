"""A draft class chosen by a helper typed ``-> type[TpModelWorker]``: the choice cannot be followed.

``_draft_class(server_args)`` returns one of two ``TpModelWorker``
subclasses; its declared return type admits any of them, so the injection
site ``draft_worker_cls=_draft_class(server_args)`` passes mypy and pyright
whatever each constructor takes. Every ``TpModelWorker`` subclass the module
can name may be what it injects, so each is held to
``build_draft_tp_worker``'s call (speculative/draft_worker_common.py):
``CompactDraft``'s constructor takes no ``load_group``, ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: inject_declared_unfollowed_bad.FullDraft DraftWorkerFactory pass runtime=pass mypy=pass pyright=pass
# expect: inject_declared_unfollowed_bad.FullDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class FullDraft(TpModelWorker):
    """TpModelWorker's constructor, as build_draft_tp_worker calls it."""


# expect: inject_declared_unfollowed_bad.CompactDraft DraftWorkerFactory fail runtime=fail mypy=fail pyright=fail
# expect: inject_declared_unfollowed_bad.CompactDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class CompactDraft(TpModelWorker):
    """A small draft with a constructor of its own."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, is_draft_worker: bool = True) -> None:
        super().__init__(server_args, gpu_id, nccl_port, is_draft_worker=is_draft_worker)


def _draft_class(server_args: ServerArgs) -> type[TpModelWorker]:
    return CompactDraft if getattr(server_args, "speculative_draft_compact", False) else FullDraft


# expect: inject_declared_unfollowed_bad.ChoosingWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect: inject_declared_unfollowed_bad.ChoosingWorker.__init__:draft_worker_cls DraftWorkerFactory pass runtime=skipped mypy=pass pyright=pass
class ChoosingWorker(BaseSpecWorker):
    """Builds the draft class the configuration chooses; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_UNFOLLOWED",
            draft_worker_cls=_draft_class(server_args),
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
