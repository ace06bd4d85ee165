"""``ForgetfulWorker``: a ``BaseSpecWorker`` subclass without ``forward_batch_generation``.

``BaseSpecWorker`` defines every member the scheduler calls but that one, so
the class imports and constructs; the scheduler's first batch would raise
``AttributeError``. It has no draft worker, so no default it keeps reads one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


class ForgetfulWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return []

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        return ()
