"""A subclass that re-declares ``target_worker`` and ``draft_worker`` as settable properties.

The setters store ``_target_worker`` / ``_draft_worker``, so
``self.target_worker = target_worker`` in ``__init__`` works: the scheduler
builds it (scheduler.py:1064) and the kept defaults read the private names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: construct_settable_property.SettableWorker SpecWorker any runtime=pass mypy=any pyright=any
class SettableWorker(BaseSpecWorker):
    """Lookup decoding with public, settable worker attributes."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.target_worker = target_worker
        self.draft_worker = None

    @property
    def target_worker(self) -> TpModelWorker:
        return self._target_worker

    @target_worker.setter
    def target_worker(self, value: TpModelWorker) -> None:
        self._target_worker = value

    @property
    def draft_worker(self) -> Any:
        return self._draft_worker

    @draft_worker.setter
    def draft_worker(self, value: Any) -> None:
        self._draft_worker = value

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
