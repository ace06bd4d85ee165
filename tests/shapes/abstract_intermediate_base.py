"""Intentional abstract base: ``MyAlgoBase(SpecWorkerBase)`` declares its own abstract ``num_proposals``; ``MyAlgoWorker`` implements it.

A plugin family shares a base that is abstract on purpose. It declares an
abstract method of its own and is subclassed by a checked class, so sglang
never instantiates it: it is not failed for being abstract, and its result
carries an "abstract base" note. The concrete worker passes.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import TYPE_CHECKING

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: abstract_intermediate_base.MyAlgoBase SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect-note: abstract base
class MyAlgoBase(SpecWorkerBase):
    """Construction and the forward step; subclasses decide how many tokens to propose."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args

    @abc.abstractmethod
    def num_proposals(self, batch: ScheduleBatch) -> int:
        """How many draft tokens to propose for this batch."""

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        if self.num_proposals(batch) > 0:
            pass  # a real algorithm drafts here
        return self.target_worker.forward_batch_generation(batch)


# expect: abstract_intermediate_base.MyAlgoWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class MyAlgoWorker(MyAlgoBase):
    """Proposes nothing: the target model runs alone."""

    def num_proposals(self, batch: ScheduleBatch) -> int:
        del batch
        return 0
