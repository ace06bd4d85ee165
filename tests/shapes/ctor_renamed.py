"""Constructor with a renamed keyword: ``__init__(self, server_args, gpu_id, port, target_worker)``.

sglang builds a spec worker with ``Cls(server_args=..., gpu_id=...,
nccl_port=..., target_worker=...)``, all by keyword. Renaming ``nccl_port``
to ``port`` is harmless in a positional call and a ``TypeError`` in this
one, raised only when the server starts. Every member is otherwise correct.
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


# expect: ctor_renamed.RenamedPortWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class RenamedPortWorker(BaseSpecWorker):
    """Runs the target model alone; calls its NCCL port ``port``."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self.port = port
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
