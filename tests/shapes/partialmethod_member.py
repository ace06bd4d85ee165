"""Member built with ``functools.partialmethod``: ``forward_batch_generation = partialmethod(_forward, mode="spec")``.

One shared implementation with a mode switch is bound per worker. At runtime
the bound member accepts exactly the scheduler's calls, so the runtime checker
must pass it (a ``partialmethod`` object is not itself callable, so it cannot
be inspected like a function). How the static checkers type a
``partialmethod`` attribute is their own business (mypy sees ``(*Any, **Any)``,
pyright a ``partialmethod`` object): their verdicts are not asserted.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: partialmethod_member.PartialMethodWorker SpecWorker any runtime=pass mypy=any pyright=any
class PartialMethodWorker(BaseSpecWorker):
    """Runs the target model alone through a mode-switched implementation."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def _forward(
        self,
        batch: ScheduleBatch,
        /,
        *,
        mode: str,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        if mode != "spec":
            raise ValueError(f"unknown mode {mode!r}")
        return self.target_worker.forward_batch_generation(batch)

    forward_batch_generation = functools.partialmethod(_forward, mode="spec")
