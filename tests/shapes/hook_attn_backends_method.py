"""``spec_v2_attn_backends`` written as a method: sglang reads it with ``getattr`` and iterates the value.

sglang 0.5.23's ``Scheduler.init_overlap`` (scheduler.py:1672) reads
``getattr(self.draft_worker, "spec_v2_attn_backends", (<target backend>,))``
and passes the value to ``overlap_utils.decide_needs_cpu_seq_lens``, which
iterates it (``any(... for b in attn_backends if b is not None)``,
overlap_utils.py:50). Found, a method is the bound method: ``TypeError:
'method' object is not iterable`` when the scheduler starts. The contract
extractor finds the hook and its use (iterated) in every release from 0.5.19;
the static checkers hold the member to the generated capability protocol (an
iterable). The runtime checker's column is not asserted here (it does not yet
read the contract's hooks); sglang's own answer is ``fail``.
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


# expect: hook_attn_backends_method.SlidingBackendWorker SpecWorker fail runtime=any mypy=fail pyright=fail member=spec_v2_attn_backends
class SlidingBackendWorker(SpecWorkerBase):
    """Reports its own draft attention backend next to the target's."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args
        self.draft_backend: object = None

    def spec_v2_attn_backends(self) -> tuple[object, ...]:
        return (self.target_worker.model_runner.attn_backend, self.draft_backend)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
