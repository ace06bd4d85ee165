"""``self.draft_swa_window = ...`` in ``__init__``, where the base has a read-only property.

``BaseSpecWorker.draft_swa_window`` is a property without a setter; a worker
that configures its own window by assigning it in ``__init__`` raises
``AttributeError`` when the scheduler constructs it (scheduler.py:1064).
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


# expect: construct_init_sets_readonly.WindowedWorker SpecWorker fail runtime=fail mypy=any pyright=any member=__init__ runtime-decides
class WindowedWorker(BaseSpecWorker):
    """Draft-free lookup decoding with its own sliding-window setting."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        self.draft_swa_window = 256  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
