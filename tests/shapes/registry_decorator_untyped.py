"""Untyped registry decorator on the class: ``@register("...")`` records the class and returns it unchanged.

Plugins register algorithms with a small untyped decorator. It returns its
argument, so the class the scheduler gets is the class as written: the
decorator must not make the checkers (or the gate) lose sight of it.
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

WORKERS = {}


def register(name):
    def decorator(cls):
        WORKERS[name] = cls
        return cls

    return decorator


# expect: registry_decorator_untyped.RegisteredWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
@register("SHAPE_REGISTRY")
class RegisteredWorker(BaseSpecWorker):
    """Runs the target model alone; registered under SHAPE_REGISTRY."""

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
