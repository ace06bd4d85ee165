"""Untyped registry decorator from another module: ``@register`` is imported from the plugin's ``_shape_registry``.

The same pattern as ``registry_decorator_untyped``, but the decorator is
defined in a module that is neither a target nor a base of the worker. A
checker that skips that module sees the decorator as ``Any``; the class must
still be checked as written, and pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from _shape_registry import register
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: registry_decorator_other_module.ImportedRegistryWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
@register("SHAPE_REGISTRY_IMPORTED")
class ImportedRegistryWorker(BaseSpecWorker):
    """Runs the target model alone; registered in the shared registry."""

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
