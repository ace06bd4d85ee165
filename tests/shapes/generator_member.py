"""Generator where a plain call is expected: ``def init_cuda_graphs(self) -> Iterator[None]: yield``.

A member written as a generator (a leftover context-manager helper, or a
stray ``yield``) returns a generator object when sglang calls it, and its
body never runs: the CUDA graphs are silently not captured. The annotation
says so, and every checker fails it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: generator_member.AnnotatedGeneratorWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=init_cuda_graphs
class AnnotatedGeneratorWorker(BaseSpecWorker):
    """Runs the target model alone; its graph capture is a generator."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def init_cuda_graphs(self) -> Iterator[None]:
        self.target_worker.init_cuda_graphs()
        yield

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
