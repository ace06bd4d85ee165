"""A ``@dataclass`` spec worker with a field named ``target_worker``.

The scheduler passes ``target_worker=`` (``Scheduler.maybe_init_draft_worker``:
``DraftWorkerClass(**draft_worker_kwargs)``, scheduler.py:1064), so declaring it
as a field looks natural. But ``BaseSpecWorker.target_worker`` is a read-only
property: the field's default is that property object, and the generated
``__init__``'s ``self.target_worker = target_worker`` raises
``AttributeError: property ... has no setter``. The runtime checker reads the
dataclass's fields against the MRO's read-only properties.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: construct_dataclass_target_field.FieldLookupWorker SpecWorker fail runtime=fail mypy=any pyright=any member=__init__ runtime-decides
@dataclass
class FieldLookupWorker(BaseSpecWorker):
    """Prompt-lookup decoding; its constructor is the dataclass's."""

    server_args: ServerArgs
    gpu_id: int
    nccl_port: int
    target_worker: TpModelWorker
    max_ngram: int = field(default=4)

    def __post_init__(self) -> None:
        BaseSpecWorker.__init__(self)
        self._target_worker = self.target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
