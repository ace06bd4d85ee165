"""Registered with the default ``spec_class``: sglang's ``CustomSpecAlgo`` is the algorithm object, and it lacks what the scheduler calls.

``SpeculativeAlgorithm.register(name, ...)`` without ``spec_class=`` makes a
``CustomSpecAlgo`` (speculative/spec_registry.py), and
``SpeculativeAlgorithm.from_string`` hands it to the scheduler, which calls it
as it calls the enum. ``Scheduler.__init__`` calls
``spec_algorithm.carries_draft_hidden_states()`` (``init_disaggregation``) and
``spec_algorithm.create_future_map(...)`` (``init_overlap``) unconditionally;
``CustomSpecAlgo`` defines neither (0.5.18 to 0.5.23), nor ``need_topk()``
(managers/overlap_utils.py). The worker itself is correct: the server still
crashes at start-up, and the algorithm object's row fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_algorithm_default.PlainWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class PlainWorker(BaseSpecWorker):
    """A correct worker; only its registration is wrong."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch: ScheduleBatch, **kwargs: object) -> GenerationBatchResult:
        result = self.target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


# expect: sglang.srt.speculative.spec_registry.CustomSpecAlgo SpecAlgorithm fail runtime=fail replay=fail mypy=fail pyright=fail member=carries_draft_hidden_states
# expect-note: lacks carries_draft_hidden_states, need_topk, create_future_map, which sglang 0.5.23 calls on it
@SpeculativeAlgorithm.register("SHAPE_REG_ALGORITHM_DEFAULT", supports_overlap=True)
def _plain(server_args: ServerArgs) -> type:
    return PlainWorker
