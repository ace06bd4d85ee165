"""``forward_batch_generation`` raises inside its own code on the replay's stand-ins.

The replay calls the member as the overlap loop does to see what it returns;
this one divides by a count its own code computes, which is zero on the
stand-ins. That is the plugin's own code failing on its own, not a break
where sglang meets it: the replay stops there (``unverified``, with the
plugin's line) and the other checkers decide.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase, SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: replay_result_forward_raises.RatioAlgorithm SpecAlgorithm pass runtime=pass replay=pass mypy=pass pyright=pass
class RatioAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """The algorithm object: CustomSpecAlgo, plus what it lacks (as in reg_algorithm_conforming)."""


# expect: replay_result_forward_raises.RatioWorker SpecWorker pass runtime=pass replay=unverified mypy=pass pyright=pass
class RatioWorker(SpecWorkerBase):
    """Keeps an acceptance ratio of its own."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args
        self.accepted = 0
        self.proposed = 0

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        self.ratio = self.accepted / self.proposed
        return self.target_worker.forward_batch_generation(batch)


@SpeculativeAlgorithm.register("SHAPE_REPLAY_RESULT_RAISES", supports_overlap=True, spec_class=RatioAlgorithm)
def _ratio(server_args: ServerArgs) -> type:
    return RatioWorker
