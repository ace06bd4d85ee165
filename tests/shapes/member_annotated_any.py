"""Member annotated ``Any``: ``forward_batch_generation: Any = _run_target_alone``.

Assigning a shared function to a class attribute and annotating it ``Any``
(to silence a checker) makes the member invisible to static checking: any
signature satisfies ``Any``. A static pass would be vacuous, so mypy and
pyright say ``unverified`` for it; the runtime checker sees the real
function, which is correct.
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


def _run_target_alone(
    self: BaseSpecWorker,
    batch: ScheduleBatch,
    /,
    *,
    on_publish: Callable[..., object] | None = None,
) -> GenerationBatchResult:
    """A forward step shared by several workers: run the target model alone."""
    del on_publish
    return self.target_worker.forward_batch_generation(batch)


# expect: member_annotated_any.AnnotatedAnyWorker SpecWorker unverified runtime=pass mypy=unverified pyright=unverified
class AnnotatedAnyWorker(BaseSpecWorker):
    """Borrows the shared forward step through an ``Any``-typed attribute."""

    forward_batch_generation: Any = _run_target_alone

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
