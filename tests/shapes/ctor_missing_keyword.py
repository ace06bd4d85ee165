"""Constructor missing a keyword: ``__init__(self, server_args, gpu_id, target_worker)`` has no ``nccl_port``.

A worker with no draft model may think it needs no NCCL port, but sglang
passes ``nccl_port=`` to every spec worker's constructor: ``TypeError`` at
server start. Every member is otherwise correct.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: ctor_missing_keyword.NoPortWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class NoPortWorker(BaseSpecWorker):
    """Runs the target model alone; takes no NCCL port."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self.gpu_id = gpu_id
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
