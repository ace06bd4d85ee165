"""Nested class: the worker is defined inside another class (a namespace for one algorithm).

The target is ``nested_class.ShapeAlgorithms.NestedWorker``: discovery must
descend into class bodies, the runtime checker must resolve a dotted
qualname, and the static harness must spell the nested name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


class ShapeAlgorithms:
    """Groups an algorithm's name and its worker class."""

    NAME = "SHAPE_NESTED"

    # expect: nested_class.ShapeAlgorithms.NestedWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
    class NestedWorker(BaseSpecWorker):
        """Runs the target model alone."""

        def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
            super().__init__()
            self.server_args = server_args
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
