"""A ``functools.wraps`` decorator whose wrapper takes ``(self, batch)`` only.

The decorator is typed ``F -> F`` and copies the original's metadata, so
``inspect.signature`` (which follows ``__wrapped__``) and the static
checkers both show the original ``forward_batch_generation(batch, *,
on_publish=...)``. sglang calls the wrapper: ``on_publish=`` at
``Scheduler.run_batch`` (scheduler.py:4704) raises ``TypeError``. The
runtime checker reads the wrapper's own signature.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

F = TypeVar("F", bound=Callable[..., Any])
STEP_COUNT = {"steps": 0}


def counted(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(self: Any, batch: Any) -> Any:
        STEP_COUNT["steps"] += 1
        return fn(self, batch)

    return cast(F, wrapper)


# expect: runtime_wraps_positional_wrapper.CountedWorker SpecWorker fail runtime=fail mypy=any pyright=any member=forward_batch_generation runtime-decides
class CountedWorker(BaseSpecWorker):
    """Counts decoding steps with a decorator."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    @counted
    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
