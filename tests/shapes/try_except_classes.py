"""Classes in try/except: one worker in the ``try`` body after an import that fails, one in the ``except`` handler.

The usual optional-dependency pattern: a fast worker when a kernel package is
installed, a fallback otherwise. At runtime only the fallback exists (the
kernel package is not installed), so the runtime checker cannot see the fast
worker and must say ``skipped`` for it alone, not for the whole module; the
static checkers see and check both.
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

try:
    import spec_shapes_fused_kernels_not_installed as fused_kernels  # type: ignore[import-not-found]

    # expect: try_except_classes.TryBodyWorker SpecWorker pass runtime=skipped mypy=pass pyright=pass
    class TryBodyWorker(BaseSpecWorker):
        """Warms the fused kernels, then runs the target model alone."""

        def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
            super().__init__()
            self.server_args = server_args
            self._target_worker = target_worker
            self._draft_worker = None
            fused_kernels.warm_up(gpu_id)

        def forward_batch_generation(
            self,
            batch: ScheduleBatch,
            /,
            *,
            on_publish: Callable[..., object] | None = None,
        ) -> GenerationBatchResult:
            del on_publish
            return self.target_worker.forward_batch_generation(batch)

except ImportError:

    # expect: try_except_classes.ExceptHandlerWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
    class ExceptHandlerWorker(BaseSpecWorker):
        """The fallback: runs the target model alone, no fused kernels."""

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
