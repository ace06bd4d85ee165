"""Class for another Python version: a worker under ``if sys.version_info >= (3, 99):`` is not checked, and a note says so.

Code for a future interpreter is unreachable to every checker here (mypy and
pyright evaluate ``sys.version_info`` statically and skip the block), so no
verdict about it can be honest: the gate leaves it out and names it in a
note. The unconditional worker next to it is checked as usual.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

# expect-absent: version_branch_class.FutureVersionWorker
# expect-note: FutureVersionWorker
if sys.version_info >= (3, 99):

    class FutureVersionWorker(BaseSpecWorker):
        """Would use a future interpreter's features; never defined on this one."""

        def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
            super().__init__()
            self._target_worker = target_worker
            self._draft_worker = None

        def forward_batch_generation(
            self,
            batch: ScheduleBatch,
            /,
            *,
            on_publish: Callable[..., object] | None = None,
        ) -> GenerationBatchResult:
            del on_publish
            return self.target_worker.forward_batch_generation(batch)


# expect: version_branch_class.CurrentVersionWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class CurrentVersionWorker(BaseSpecWorker):
    """Runs the target model alone, on any supported interpreter."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
