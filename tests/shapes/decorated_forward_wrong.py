"""A ``@spec_worker_class`` worker on ``SpecWorkerBase`` whose ``forward_batch_generation`` takes no ``on_publish``.

The decorator is imported under another name (``from spec_protocols import
spec_worker_class as spec_worker``). Under overlap scheduling (the default)
``Scheduler.run_batch`` calls ``forward_batch_generation(batch,
on_publish=...)``, which this signature refuses with a ``TypeError`` on the
first decode step. Every other member is inherited from ``SpecWorkerBase``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spec_protocols import SpecWorkerBase
from spec_protocols import spec_worker_class as spec_worker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: decorated_forward_wrong.NoPublishWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=forward_batch_generation
@spec_worker
class NoPublishWorker(SpecWorkerBase):
    """Runs the target model alone, and forgets the publish callback."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args

    def forward_batch_generation(self, batch: ScheduleBatch) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
