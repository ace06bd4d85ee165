"""A ``@dataclass`` spec worker whose ``__post_init__`` never runs ``BaseSpecWorker.__init__``.

A dataclass's generated ``__init__`` does not call ``super().__init__()``.
``BaseSpecWorker.__init__`` is what sets ``_additional_graph_memory_usage``
and ``_additional_graph_time_usage``; the kept ``graph_memory_usage`` reads
the first, and ``Scheduler.emit_metrics_constants`` reads that property at
start-up (scheduler.py:1294): ``AttributeError``. The runtime checker follows
the constructors that run and the attributes the kept members read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: construct_dataclass_no_base_init.NoBaseInitWorker SpecWorker fail runtime=fail mypy=any pyright=any member=graph_memory_usage runtime-decides
@dataclass
class NoBaseInitWorker(BaseSpecWorker):
    """Prompt-lookup decoding; forgets the base constructor."""

    server_args: ServerArgs
    gpu_id: int
    nccl_port: int
    target_worker: InitVar[TpModelWorker]

    def __post_init__(self, target_worker: TpModelWorker) -> None:
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
