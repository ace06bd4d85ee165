"""The constructor calls an inherited method with an argument it does not take.

``BaseSpecWorker.init_hicache_draft_plan(self)`` takes no argument
(speculative/base_spec_worker.py:343). This worker calls it from its own
``__init__`` with the server arguments, so the call raises ``TypeError`` when
``Scheduler.maybe_init_draft_worker`` builds the worker (managers/scheduler.py:1064),
before any call the protocol lists. Both static checkers report the call at
that line ("Too many arguments", "Expected 0 positional arguments"), inside
the constructor: the class fails for each of them.
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


# expect: diag_ctor_wrong_call.EagerPlanWorker SpecWorker fail runtime=any mypy=fail pyright=fail member=__init__
class EagerPlanWorker(BaseSpecWorker):
    """Runs the target model alone, planning its cache backup as it is built."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
        self.init_hicache_draft_plan(server_args)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)
