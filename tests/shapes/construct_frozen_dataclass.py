"""A frozen ``@dataclass`` spec worker that keeps ``BaseSpecWorker``'s ``alloc_memory_pool``.

"Workers are configured once": ``@dataclass(frozen=True)``, private state
set with ``object.__setattr__`` in ``__post_init__``, which runs the base
constructor the same way. Construction works (scheduler.py:1064), but the
kept ``BaseSpecWorker.alloc_memory_pool``, which ``Scheduler.init_memory_pools``
calls at start-up, ends with ``self.req_to_token_pool = req_to_token_pool``:
the frozen ``__setattr__`` raises ``FrozenInstanceError``. The runtime checker
reads the stores of the sglang members a class keeps and the release calls.
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


# expect: construct_frozen_dataclass.FrozenConfigWorker SpecWorker fail runtime=fail mypy=any pyright=any member=alloc_memory_pool runtime-decides
@dataclass(frozen=True, eq=False)
class FrozenConfigWorker(BaseSpecWorker):
    """Lookup decoding configured once, never mutated."""

    server_args: ServerArgs
    gpu_id: int
    nccl_port: int
    target_worker: InitVar[TpModelWorker]

    def __post_init__(self, target_worker: TpModelWorker) -> None:
        object.__setattr__(self, "_additional_graph_memory_usage", {})
        object.__setattr__(self, "_additional_graph_time_usage", {})
        object.__setattr__(self, "_target_worker", target_worker)
        object.__setattr__(self, "_draft_worker", None)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
