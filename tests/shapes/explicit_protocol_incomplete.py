"""An explicit subclass of the ``SpecWorker`` protocol that writes only the step it cares about.

``class W(SpecWorker)`` inherits the protocol's own definitions for every
member it does not write, and their bodies are ``...``: a property that
returns ``None``, a method that does nothing. sglang calls them
(``Scheduler.init_target_memory_pool`` adds
``self.draft_worker.preloaded_weights_bytes`` to an int, managers/scheduler.py).
Discovery finds the class by its protocol base (it has no other); mypy and
pyright call it abstract where the scheduler builds it (the protocol's stub
members are not implemented), and the runtime checker finds the stubs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import spec_protocols as sp

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: explicit_protocol_incomplete.StepOnlyWorker SpecWorker fail runtime=fail mypy=fail pyright=fail
class StepOnlyWorker(sp.SpecWorker):
    """Writes its constructor and the forward step; the rest is the protocol's."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        self._target = target_worker

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None, pp_proxy_tensors: Any = None
    ) -> GenerationBatchResult:
        return self._target.forward_batch_generation(batch)
