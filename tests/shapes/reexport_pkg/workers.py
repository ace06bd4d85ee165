"""The package's worker, on the base re-exported by the package's ``__init__``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from reexport_pkg import PluginBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult


# expect: reexport_pkg.workers.ReexportWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class ReexportWorker(PluginBase):
    """Counts the batches it runs; otherwise PluginBase's behaviour."""

    batches_run: int = 0

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        self.batches_run += 1
        return super().forward_batch_generation(batch, on_publish=on_publish)
