"""An ``async def`` member is not a sync protocol method.

sglang fact: the scheduler calls ``init_attention_backends()``,
``init_cuda_graphs()`` and ``clear_cache_pool()`` without awaiting
(scheduler.py:1117, 1126, 5531). An ``async def`` there returns a coroutine
that never runs. The protocol methods return ``None`` (not ``object``) so that
a coroutine is not assignable; both checkers must reject it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from spec_protocols import DraftWorker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class _Common:
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


class Sync(_Common):
    def init_cuda_graphs(self) -> None: ...


class Async(_Common):
    async def init_cuda_graphs(self) -> None: ...


def check(sync: Sync, coro: Async) -> None:
    ok: DraftWorker = sync
    del ok
    if TYPE_CHECKING_INVALID_USAGE:
        bad: DraftWorker = coro  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del bad
