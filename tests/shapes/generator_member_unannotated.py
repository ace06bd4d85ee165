"""Unannotated generator member: ``def init_cuda_graphs(self): ... yield``.

The same mistake as ``generator_member`` without an annotation. The runtime
checker sees a generator function; pyright infers the ``Generator`` return
type and fails it; mypy treats an unannotated function as returning ``Any``
and cannot tell (its verdict is not asserted). One failing checker is enough
to fail the gate.
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


# expect: generator_member_unannotated.UnannotatedGeneratorWorker SpecWorker fail runtime=fail mypy=any pyright=fail member=init_cuda_graphs
class UnannotatedGeneratorWorker(BaseSpecWorker):
    """Runs the target model alone; its graph capture is an unannotated generator."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def init_cuda_graphs(self):
        self.target_worker.init_cuda_graphs()
        yield

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
