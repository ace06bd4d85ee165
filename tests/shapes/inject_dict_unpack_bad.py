"""Injected through ``**{"draft_worker_cls": ...}``, bad constructor.

Plugins that build ``build_draft_tp_worker``'s keywords in a dict pass the
draft class as a dict value unpacked with ``**``. The value is a plain class
reference, so the gate checks the class itself, whose constructor takes only
``server_args``.
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


# expect: inject_dict_unpack_bad.DictUnpackBadDraft DraftWorkerFactory fail runtime=fail mypy=fail pyright=fail
# expect: inject_dict_unpack_bad.DictUnpackBadDraft DraftWorker pass runtime=pass mypy=pass pyright=pass
class DictUnpackBadDraft(TpModelWorker):
    """A draft worker that only wants the server arguments."""

    def __init__(self, server_args: ServerArgs) -> None:
        super().__init__(server_args, gpu_id=0, nccl_port=0, is_draft_worker=True)


# expect: inject_dict_unpack_bad.DictUnpackWorker SpecWorker fail runtime=pass mypy=pass pyright=pass
class DictUnpackWorker(BaseSpecWorker):
    """Passes the draft class inside an unpacked dict; runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_DICT_UNPACK",
            **{"draft_worker_cls": DictUnpackBadDraft},
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
