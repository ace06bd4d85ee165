"""Constructor assigns a read-only property: ``self.draft_swa_window = ...`` in ``__init__``.

sglang 0.5.23's ``BaseSpecWorker.draft_swa_window`` is a property without a
setter (speculative/base_spec_worker.py:164). ``Scheduler.maybe_init_draft_worker``
builds the worker (managers/scheduler.py:1064, ``DraftWorkerClass(**draft_worker_kwargs)``),
so the assignment raises ``AttributeError: property 'draft_swa_window' ... has
no setter`` before the scheduler reads anything. Both static checkers say so at
that line (mypy: "Property ... is read-only"; pyright: "Cannot assign to
attribute"): construction is part of the contract, so each fails the class there.
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


# expect: diag_readonly_property_init.WindowedLookupWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class WindowedLookupWorker(BaseSpecWorker):
    """Prompt lookup that keeps a sliding window of the draft's own tokens."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
        self.draft_swa_window = 64

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
