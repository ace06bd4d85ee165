"""``prepare_for_kv_cache_release`` without the request: sglang finds it with ``getattr`` and calls it with one.

sglang 0.5.23's ``SchedulerBatchResultProcessor._prepare_kv_cache_release``
(batch_result_processor.py:1358-1362) does ``prepare_release =
getattr(self.model_worker, "prepare_for_kv_cache_release", None)``, then
``if callable(prepare_release): prepare_release(req)`` for every finished
request: a method that takes no request raises ``TypeError``. The contract
extractor follows the local the lookup is bound to and records the call (one
positional) in every release from 0.5.19; both static checkers hold the
method to it. The runtime checker's column is not asserted here (it does not
yet read the contract's hooks); sglang's own answer is ``fail``.
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


# expect: hook_release_no_req.PinnedPagesWorker SpecWorker fail runtime=any mypy=fail pyright=fail member=prepare_for_kv_cache_release
class PinnedPagesWorker(SpecWorkerBase):
    """Keeps host copies of pages it pinned; drops them all before a release."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args
        self.pinned: list[int] = []

    def prepare_for_kv_cache_release(self) -> None:
        self.pinned.clear()

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
