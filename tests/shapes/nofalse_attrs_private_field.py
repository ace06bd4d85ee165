"""An attrs worker whose private fields take the scheduler's keywords.

attrs strips the leading underscore from a private field's ``__init__``
parameter: ``_target_worker: TpModelWorker`` is set by ``target_worker=``, so
the generated ``__init__(server_args, gpu_id, nccl_port, target_worker)`` takes
exactly the keywords ``Scheduler.maybe_init_draft_worker`` passes
(managers/scheduler.py:1064), and stores the target where
``BaseSpecWorker.target_worker`` reads it. ``__attrs_post_init__`` runs
``BaseSpecWorker.__init__``. It works. Neither static checker is given attrs
here (a third-party import), so neither sees the generated ``__init__``: their
columns are ``unverified`` with that reason, never ``fail``, and the runtime
checker, which sees the real class, decides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: nofalse_attrs_private_field.AttrsNgramWorker SpecWorker pass runtime=pass mypy=unverified pyright=unverified runtime-decides
@attrs.define(eq=False, slots=False)
class AttrsNgramWorker(BaseSpecWorker):
    """N-gram lookup over the prompt; no draft model."""

    server_args: ServerArgs
    gpu_id: int
    nccl_port: int
    _target_worker: TpModelWorker
    _draft_worker: None = None
    max_ngram: int = 4

    def __attrs_post_init__(self) -> None:
        BaseSpecWorker.__init__(self)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
