"""Mistake 1 of docs/authoring.md's worked example: ``forward_batch_generation`` not written.

``BaseSpecWorker`` declares every scheduler-facing member but this one, so the
class imports, constructs and looks complete; the scheduler's first batch
would raise ``AttributeError``.
"""

from __future__ import annotations

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class NoForwardWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return []
