"""Registered with a ``spec_class`` that mixes ``SpecAlgorithmBase`` into ``CustomSpecAlgo``: the algorithm object has everything the scheduler calls.

``SpecAlgorithmBase`` gives ``carries_draft_hidden_states``,
``create_future_map`` and ``need_topk`` as the enum ``SpeculativeAlgorithm``
writes them; ``CustomSpecAlgo`` gives the predicates, ``create_worker`` and
the constructor ``register_algorithm`` calls (speculative/spec_registry.py).
The registration passes the class as ``spec_class=``, so
``SpeculativeAlgorithm.from_string`` hands the scheduler an instance of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_algorithm_conforming.MixedAlgorithm SpecAlgorithm pass runtime=pass replay=pass mypy=pass pyright=pass
class MixedAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """The algorithm object: CustomSpecAlgo, plus what it lacks."""


# expect: reg_algorithm_conforming.MixedWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class MixedWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch: ScheduleBatch, **kwargs: object) -> GenerationBatchResult:
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


@SpeculativeAlgorithm.register("SHAPE_REG_ALGORITHM_MIXED", supports_overlap=True, spec_class=MixedAlgorithm)
def _mixed(server_args: ServerArgs) -> type:
    return MixedWorker
