"""The registered factory takes ``server_args`` by keyword only.

``CustomSpecAlgo.create_worker(server_args)`` calls ``self.factory(server_args)``
positionally (speculative/spec_registry.py): a factory written
``def make(*, server_args)`` raises ``TypeError`` when the scheduler asks for
the worker class, before any worker exists. The worker it would return is
correct; what sglang cannot use is the registration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: replay_keyword_only_factory.KeywordFactoryWorker SpecWorker fail runtime=pass replay=fail mypy=any pyright=any runtime-decides
class KeywordFactoryWorker(BaseSpecWorker):
    """Runs the target model alone; its factory cannot be called positionally."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)


def _make(*, server_args: ServerArgs) -> type:
    return KeywordFactoryWorker


SpeculativeAlgorithm.register("SHAPE_REPLAY_KEYWORD_FACTORY", supports_overlap=True)(_make)
