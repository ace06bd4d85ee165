"""A ``BaseSpecWorker`` subclass that writes ``note_request_finished`` with its own signature.

sglang 0.5.23's result processor calls
``draft_worker.note_request_finished(rid=req.rid, natural_stop=...)`` for every
finished request, behind ``isinstance(draft_worker, BaseSpecWorker)``
(batch_result_processor.py:1441-1442). ``SpecWorker`` leaves the hook out (a
worker without the base never gets the call), but a subclass of the base always
does: its own version must take the call (``SupportsRequestFinished``), or
every finished request raises ``TypeError``. ``GoodHookWorker`` writes it as the
call site passes it and passes; keeping the base's no-op is always fine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: nominal_hook_override._NoDraft SpecWorker pass runtime=pass mypy=pass pyright=pass
class _NoDraft(BaseSpecWorker):
    """Shared body: no draft worker, the target does the work."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        del server_args, gpu_id, nccl_port
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


# expect: nominal_hook_override.BadHookWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=note_request_finished
class BadHookWorker(_NoDraft):
    """Takes the finished request itself: sglang passes rid= and natural_stop=."""

    def note_request_finished(self, req: object) -> None:  # type: ignore[override]
        del req


# expect: nominal_hook_override.GoodHookWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class GoodHookWorker(_NoDraft):
    """Counts natural stops, taking the call as sglang makes it."""

    natural_stops = 0

    def note_request_finished(self, *, rid: str, natural_stop: bool) -> None:
        del rid
        self.natural_stops += natural_stop
