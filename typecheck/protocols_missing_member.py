"""A class that lacks a protocol member is not that protocol.

sglang fact: ``BaseSpecWorker`` calls ``self.draft_worker.init_cuda_graphs()``
(base_spec_worker.py:377) on every draft worker, and the scheduler calls
``note_request_finished`` on every spec worker
(scheduler_components/batch_result_processor.py:1442). A draft worker without
``init_cuda_graphs`` fails at capture time; both checkers must say so first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from spec_protocols import DraftWorker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class NoCudaGraphs:
    def alloc_memory_pool(self, **kwargs: object) -> None: ...
    def init_attention_backends(self) -> None: ...

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        return {}
    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        return {}
    @property
    def weight_load_time(self) -> float:
        return 0.0
    @property
    def preloaded_weights_bytes(self) -> int:
        return 0


class Complete(NoCudaGraphs):
    def init_cuda_graphs(self) -> None: ...


def check(incomplete: NoCudaGraphs, complete: Complete) -> None:
    ok: DraftWorker = complete
    del ok
    if TYPE_CHECKING_INVALID_USAGE:
        bad: DraftWorker = incomplete  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del bad
