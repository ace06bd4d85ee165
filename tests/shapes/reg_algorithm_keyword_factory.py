"""The registered factory takes ``server_args`` by keyword only; ``create_worker`` passes it by position.

``CustomSpecAlgo.create_worker(server_args)`` returns
``self.factory(server_args)`` (speculative/spec_registry.py): one positional
argument. A factory written ``def f(*, server_args)`` raises ``TypeError``
there, in ``Scheduler.maybe_init_draft_worker``, before any worker exists. The
algorithm object (a conforming ``spec_class``) fails on its member
``factory``; the worker itself is correct.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_algorithm_keyword_factory.KeywordAlgorithm SpecAlgorithm fail runtime=fail replay=fail mypy=fail pyright=fail member=factory
class KeywordAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """A conforming algorithm object; its registered factory is not."""


# expect: reg_algorithm_keyword_factory.KeywordWorker SpecWorker fail runtime=pass replay=fail mypy=pass pyright=pass runtime-decides
class KeywordWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch: ScheduleBatch, **kwargs: object) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)


# mypy and pyright flag the decorator itself through the stubs' register (WorkerClassFactory).
@SpeculativeAlgorithm.register("SHAPE_REG_ALGORITHM_KEYWORD", supports_overlap=True, spec_class=KeywordAlgorithm)
def _keyword_only(*, server_args: ServerArgs) -> type:
    return KeywordWorker
