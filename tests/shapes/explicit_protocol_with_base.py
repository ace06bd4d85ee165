"""An explicit ``SpecWorker`` protocol base next to ``SpecWorkerBase``, which implements every member.

The author lists the protocol to document intent: ``class W(SpecWorkerBase,
SpecWorker)``. ``SpecWorkerBase`` comes first in the method resolution
order, so each member a lookup finds is its implementation, not the
protocol's stub; the class is concrete and works when the scheduler builds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spec_protocols import SpecWorker, SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: explicit_protocol_with_base.DeclaredWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class DeclaredWorker(SpecWorkerBase, SpecWorker):
    """Runs the target model alone; says it is a SpecWorker."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
