"""An explicit subclass of the ``SpecWorker`` protocol that writes only a few members.

Subclassing a ``Protocol`` explicitly inherits its definitions, whose bodies
are ``...``: properties that return ``None`` and methods that do nothing.
``Scheduler.init_target_memory_pool`` adds
``self.draft_worker.preloaded_weights_bytes`` to an int (scheduler.py:1088):
``TypeError`` at start-up. An inherited protocol stub is not an
implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from spec_protocols import SpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: runtime_protocol_stub_inherited.ThinWorker SpecWorker fail runtime=fail mypy=any pyright=any member=preloaded_weights_bytes
class ThinWorker(SpecWorker):
    """Writes the step and the weight hook; trusts the protocol for the rest."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        self.target_worker = target_worker

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self) -> list[Any]:
        return []
