"""A ``@dataclass`` spec worker that takes ``target_worker`` as an ``InitVar``.

An ``InitVar`` is passed to ``__post_init__`` and never stored, so the
generated ``__init__`` does not touch ``BaseSpecWorker``'s read-only
``target_worker`` property; ``__post_init__`` sets ``_target_worker`` and
runs ``BaseSpecWorker.__init__``. The scheduler's keyword call
(scheduler.py:1064) builds it, and every later call works.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: construct_dataclass_initvar.InitVarWorker SpecWorker any runtime=pass mypy=any pyright=any
@dataclass
class InitVarWorker(BaseSpecWorker):
    """Prompt-lookup decoding, a dataclass that keeps the base's defaults."""

    server_args: ServerArgs
    gpu_id: int
    nccl_port: int
    target_worker: InitVar[TpModelWorker]

    def __post_init__(self, target_worker: TpModelWorker) -> None:
        BaseSpecWorker.__init__(self)
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
