"""Same module name, first copy: ``dup_a/plugin_dup.py`` holds a correct worker.

Two plugin folders (not packages) each have a ``plugin_dup.py``; checked in
one run they are two different modules with one name. The gate must check
each file's classes from that file, in isolation: importing or analysing
``plugin_dup`` once and reusing it for both would check one file twice and
the other never.
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


# expect: plugin_dup.GoodDupWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class GoodDupWorker(BaseSpecWorker):
    """Runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
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
