"""A type error inside a helper method's body: the author's own type-check, not a verdict.

The worker is built with the scheduler's keywords (managers/scheduler.py:1064)
and every member sglang calls takes its calls; only ``_stats``, a helper no
sglang call site reaches, returns the wrong type. Both checkers report that
inside the method's body, which is not one of the class's own lines (its
statement, its members' definitions, its constructor): the class passes, and
the report counts the error in a note.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: diag_body_error_note.CountingWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect-note: inside this class's method bodies
class CountingWorker(BaseSpecWorker):
    """Runs the target model alone and counts the steps it ran."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
        self.steps = 0

    def _stats(self) -> dict[str, int]:
        return f"steps={self.steps}"

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        self.steps += 1
        return self.target_worker.forward_batch_generation(batch)
