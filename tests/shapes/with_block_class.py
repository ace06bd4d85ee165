"""Class in a ``with`` block: the worker is defined inside ``with contextlib.suppress(ImportError):``.

Some plugins wrap an optional registration in a ``with`` statement instead of
``try``. The class exists at runtime (nothing in the block fails), so all
three checkers must find and check it; a discovery that only walks top-level
statements never sees it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

with contextlib.suppress(ImportError):
    from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker  # noqa: F401  (availability probe)

    # expect: with_block_class.WithBlockWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
    class WithBlockWorker(BaseSpecWorker):
        """Runs the target model alone; defined only when the optional import succeeds."""

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
