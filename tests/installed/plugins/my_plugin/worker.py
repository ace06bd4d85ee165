"""``MyWorker``: the docs' ``my_plugin.worker:MyWorker``, a worker on ``SpecWorkerBase``.

It imports ``spec_protocols`` only (sglang's names are read under
``TYPE_CHECKING``), so ``assert_conforms`` and the runtime checker import it
where sglang is not installed, as the docs' blocks run it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spec_protocols import SpecWorkerBase, spec_worker_class

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


@spec_worker_class
class MyWorker(SpecWorkerBase):
    """The scaffold's worker (``spec-protocols new worker MyWorker``), with no draft model."""

    def __init__(
        self,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        target_worker: TpModelWorker,
        ps: object = None,  # passed by 0.5.19's and 0.5.20's scheduler: the docs check every supported release
    ) -> None:
        super().__init__(target_worker=target_worker, draft_worker=None)
        self.server_args = server_args

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        raise NotImplementedError("MyWorker.forward_batch_generation: the docs' plugin is never served")
