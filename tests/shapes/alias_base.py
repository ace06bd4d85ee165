"""Alias base: the worker's base class is a module-level alias of BaseSpecWorker.

Plugins shorten long imports (``Base = BaseSpecWorker``) or keep a
compatibility name across sglang versions. Discovery must follow the alias to
the real base; a gate that only matches base-class names misses the worker
entirely, and a missed worker is a silent pass.
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

Base = BaseSpecWorker


# expect: alias_base.AliasWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class AliasWorker(Base):
    """Runs the target model alone: a correct worker whose base is spelled through an alias."""

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
