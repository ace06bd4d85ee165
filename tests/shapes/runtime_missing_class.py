"""Class that exists only for type checkers: one worker under ``if TYPE_CHECKING:``, one defined normally.

Typing-only subclasses appear in plugins that describe a worker's shape for
IDEs. The import never creates the class, so the runtime checker says
``skipped`` for that class alone (the module itself imports fine, and the
other worker in it gets its runtime verdict); mypy and pyright check both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

    # expect: runtime_missing_class.TypeCheckingOnlyWorker SpecWorker pass runtime=skipped mypy=pass pyright=pass
    class TypeCheckingOnlyWorker(BaseSpecWorker):
        """The worker as type checkers should see it."""

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
            return self.target_worker.forward_batch_generation(batch)


# expect: runtime_missing_class.RuntimePresentWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class RuntimePresentWorker(BaseSpecWorker):
    """Runs the target model alone."""

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
