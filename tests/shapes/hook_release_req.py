"""``prepare_for_kv_cache_release(req)``: the hook as sglang calls it (or set to ``None``).

sglang 0.5.23's ``SchedulerBatchResultProcessor._prepare_kv_cache_release``
(batch_result_processor.py:1358-1362) finds the hook with ``getattr(...,
None)`` and calls ``prepare_release(req)``: a method taking the request binds.
Both static checkers hold it to the capability protocol generated from that
call, and pass it. The lookup's default is ``None``, so sglang's code copes
with ``None`` (``if callable(prepare_release):``): a class that sets the hook
to ``None`` is never called, and passes too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: hook_release_req.PerRequestPagesWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class PerRequestPagesWorker(SpecWorkerBase):
    """Keeps host copies of pages per request; drops a request's before its release."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args
        self.pinned: dict[str, list[int]] = {}

    def prepare_for_kv_cache_release(self, req: object) -> None:
        self.pinned.pop(str(getattr(req, "rid", "")), None)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)


# expect: hook_release_req.NoReleaseHookWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class NoReleaseHookWorker(PerRequestPagesWorker):
    """Keeps nothing per request: the hook switched off, as sglang's default would be."""

    prepare_for_kv_cache_release = None  # type: ignore[assignment]
