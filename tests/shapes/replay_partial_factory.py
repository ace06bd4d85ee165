"""The registered factory returns ``functools.partial(Worker, mode=...)``.

``CustomSpecAlgo.create_worker`` (speculative/spec_registry.py) returns what
the factory returns, and the scheduler calls it with its four keywords
(managers/scheduler.py ``maybe_init_draft_worker``): the partial supplies
``mode``, so the call binds. Read as a class, the worker's constructor wants
a ``mode`` the scheduler never passes; built as sglang builds it, it works.
The sibling's partial binds ``mode`` but the worker also wants ``depth``,
which nothing passes: the scheduler's call raises ``TypeError``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: replay_partial_factory.ModalWorker SpecWorker pass runtime=unverified replay=pass mypy=unverified pyright=unverified runtime-decides
class ModalWorker(BaseSpecWorker):
    """Runs the target model in one of two modes."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker, mode: str) -> None:
        super().__init__()
        self.server_args = server_args
        self.mode = mode
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


# expect: replay_partial_factory.DeepModalWorker SpecWorker fail runtime=fail replay=fail mypy=fail pyright=fail member=__init__
class DeepModalWorker(ModalWorker):
    """Also wants a depth, which neither the partial nor the scheduler passes."""

    def __init__(
        self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker, mode: str, depth: int
    ) -> None:
        super().__init__(server_args, gpu_id, nccl_port, target_worker, mode)
        self.depth = depth


@SpeculativeAlgorithm.register("SHAPE_REPLAY_MODAL", supports_overlap=True)
def _modal(server_args: ServerArgs) -> Callable[..., ModalWorker]:
    return functools.partial(ModalWorker, mode="greedy")


@SpeculativeAlgorithm.register("SHAPE_REPLAY_DEEP_MODAL", supports_overlap=True)
def _deep(server_args: ServerArgs) -> Callable[..., ModalWorker]:
    return functools.partial(DeepModalWorker, mode="greedy")
