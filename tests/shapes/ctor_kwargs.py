"""Constructor taking ``**kwargs``: ``__init__(self, **kwargs)`` accepts sglang's four keywords.

A catch-all constructor accepts the call sglang makes, so it passes. (Whether
it reads the right keys is the worker's business; what the gate checks is
that the call cannot raise ``TypeError``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult


# expect: ctor_kwargs.KwargsCtorWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class KwargsCtorWorker(BaseSpecWorker):
    """Runs the target model alone; reads its constructor arguments from ``**kwargs``."""

    def __init__(self, **kwargs):
        super().__init__()
        self.server_args = kwargs["server_args"]
        self._target_worker = kwargs["target_worker"]
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
