"""Baseline: a correct SpecWorkerBase subclass whose sglang imports are all under ``TYPE_CHECKING``.

The reference point for every other shape: the sglang-compatible
constructor, ``forward_batch_generation`` with sglang 0.5.23's signature, and
everything else inherited. Importing it needs no sglang (nor torch), so its
runtime verdict is ``pass`` even where sglang cannot be imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: specworkerbase_good.BaselineGoodWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class BaselineGoodWorker(SpecWorkerBase):
    """Runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
