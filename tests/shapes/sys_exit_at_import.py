"""Module that calls ``sys.exit(3)`` at import: a correct worker, then a module-level ``sys.exit``.

Script-style plugins sometimes end in an unguarded ``sys.exit(main())``.
Importing the module raises ``SystemExit``: the runtime checker cannot see
its classes and says ``skipped`` (with the reason), and must not take the rest
of the run down with it; mypy and pyright check the worker and pass it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: sys_exit_at_import.ExitAtImportWorker SpecWorker pass runtime=skipped mypy=pass pyright=pass
class ExitAtImportWorker(BaseSpecWorker):
    """Runs the target model alone."""

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


def main() -> int:
    print("registering SHAPE_EXIT with a server that is not running")
    return 3


sys.exit(main())
