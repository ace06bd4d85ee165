"""Star-imported base: BaseSpecWorker comes from ``from ... base_spec_worker import *``.

Star imports are common in research plugins that copy sglang's own modules.
The base name is bound by a ``*`` import, so discovery must expand it (the
module defines no ``__all__``: every public top-level name) to recognise the
worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import *  # noqa: F403

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: star_import_base.StarImportWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class StarImportWorker(BaseSpecWorker):  # noqa: F405
    """Runs the target model alone; its base is bound by a star import."""

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
