"""Workers made by a class factory function called at module level.

``make_worker(width, overlap)`` holds a ``class`` statement in its body and
returns the class; the module binds ``BigramWorker = make_worker(2, True)``
and ``SyncBigramWorker = make_worker(2, False)``. Discovery reads the factory's
``class`` statement as local to a function (not a worker the module binds),
so only the import shows the two classes: the runtime checker lists them
(``_runtime_scan.classes_at_import``), the static checkers say
``unverified``. ``SyncBigramWorker``'s ``forward_batch_generation`` drops
``on_publish=``, which the overlap branch passes (scheduler.py: run_batch).
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


def make_worker(width: int, overlap: bool) -> type[BaseSpecWorker]:
    if overlap:

        class _Worker(BaseSpecWorker):
            def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
                super().__init__()
                self._target_worker = target_worker
                self._draft_worker = None
                self.width = width

            def forward_batch_generation(
                self,
                batch: ScheduleBatch,
                *,
                on_publish: Callable[..., Any] | None = None,
                pp_proxy_tensors: Any = None,
            ) -> GenerationBatchResult:
                return self.target_worker.forward_batch_generation(batch)

        return _Worker

    class _SyncWorker(BaseSpecWorker):
        def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
            super().__init__()
            self._target_worker = target_worker
            self._draft_worker = None

        def forward_batch_generation(self, batch: ScheduleBatch, *, pp_proxy_tensors: Any = None) -> GenerationBatchResult:  # type: ignore[override]
            return self.target_worker.forward_batch_generation(batch)

    return _SyncWorker


# expect: typebuilt_class_factory.BigramWorker SpecWorker unverified runtime=pass mypy=unverified pyright=unverified runtime-decides
BigramWorker = make_worker(2, True)
# expect: typebuilt_class_factory.SyncBigramWorker SpecWorker fail runtime=fail mypy=unverified pyright=unverified member=forward_batch_generation runtime-decides
SyncBigramWorker = make_worker(2, False)
