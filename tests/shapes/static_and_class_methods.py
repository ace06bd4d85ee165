"""Static and class methods as members: hooks that need no instance are written ``@staticmethod`` / ``@classmethod``.

sglang calls ``worker.clear_cache_pool()``, ``worker.init_hicache_draft_plan()``
and ``worker.note_request_finished(rid=..., natural_stop=...)`` on an
instance; a staticmethod or classmethod with the right parameters accepts
those calls. A checker that compares the raw function (counting ``self``)
would fail a correct worker.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

logger = logging.getLogger(__name__)


# expect: static_and_class_methods.StaticClassMethodsWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class StaticClassMethodsWorker(BaseSpecWorker):
    """Runs the target model alone; its stateless hooks are static or class methods."""

    finished_requests: int = 0

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    @staticmethod
    def init_hicache_draft_plan() -> None:
        """No draft KV to back up."""

    @staticmethod
    def clear_cache_pool() -> None:
        logger.debug("nothing to clear: no draft-side cache")

    @classmethod
    def note_request_finished(cls, *, rid: str, natural_stop: bool) -> None:
        cls.finished_requests += 1
        logger.debug("request %s finished (natural stop: %s)", rid, natural_stop)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
