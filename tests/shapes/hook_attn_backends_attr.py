"""``spec_v2_attn_backends`` as a tuple attribute (and as a property): what sglang iterates.

sglang 0.5.23's ``Scheduler.init_overlap`` (scheduler.py:1672) reads
``getattr(self.draft_worker, "spec_v2_attn_backends", (...,))`` and
``overlap_utils.decide_needs_cpu_seq_lens`` iterates the value
(overlap_utils.py:50): a tuple set in the class body (or a property that
returns one) iterates fine. Both static checkers hold the member to the
capability protocol generated from that use, and both pass it.
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


# expect: hook_attn_backends_attr._TargetOnly SpecWorker pass runtime=pass mypy=pass pyright=pass
class _TargetOnly(SpecWorkerBase):
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


# expect: hook_attn_backends_attr.TupleBackendsWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class TupleBackendsWorker(_TargetOnly):
    """No backend of its own: an empty tuple, so the target's needs decide."""

    spec_v2_attn_backends: tuple[object, ...] = ()


# expect: hook_attn_backends_attr.PropertyBackendsWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class PropertyBackendsWorker(_TargetOnly):
    """The target's backend, read when sglang asks."""

    @property
    def spec_v2_attn_backends(self) -> tuple[object, ...]:
        return (self.target_worker.model_runner.attn_backend,)
