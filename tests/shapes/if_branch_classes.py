"""Classes in both branches of a runtime ``if``: one worker per branch of ``if os.environ.get(...)``.

Feature flags pick a worker at import time. Only one branch runs, so at
runtime one class does not exist: the runtime checker must report ``skipped``
for that class only, and the static checkers (which see both branches) still
decide it. The test runs the gate with ``SPEC_SHAPES_FAST_WORKER`` unset, so
the ``else`` branch is the one taken.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

if os.environ.get("SPEC_SHAPES_FAST_WORKER"):

    # expect: if_branch_classes.FastBranchWorker SpecWorker pass runtime=skipped mypy=pass pyright=pass
    class FastBranchWorker(BaseSpecWorker):
        """The flag-enabled worker (not created in the test run)."""

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

else:

    # expect: if_branch_classes.SlowBranchWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
    class SlowBranchWorker(BaseSpecWorker):
        """The default worker (created in the test run)."""

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
