"""A ``functools.wraps`` decorator whose wrapper forwards ``*args, **kwargs``.

The wrapper's own signature, ``(*args, **kwargs)``, takes every call sglang
makes and hands it on to the original, so ``on_publish=`` (scheduler.py:4704)
and ``pp_proxy_tensors=`` (4829) reach it: this works, and judging the
wrapper (not ``__wrapped__``) must not fail it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

F = TypeVar("F", bound=Callable[..., Any])
TIMINGS: list[float] = []


def timed(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMINGS.append(time.perf_counter() - start)

    return cast(F, wrapper)


# expect: runtime_wraps_forwarding_wrapper.TimedWorker SpecWorker any runtime=pass mypy=any pyright=any
class TimedWorker(BaseSpecWorker):
    """Times decoding steps with a decorator."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    @timed
    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
