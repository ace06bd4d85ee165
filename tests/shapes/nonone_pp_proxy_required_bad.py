"""Registered synchronous; ``pp_proxy_tensors`` is typed without ``| None``.

An algorithm registered with ``supports_overlap=False`` runs only the
scheduler's synchronous branch (speculative/spec_registry.py
``CustomSpecAlgo.create_worker``), whose call is
``self.model_worker.forward_batch_generation(batch,
pp_proxy_tensors=pp_proxy_tensors)`` (managers/scheduler.py
``Scheduler.run_batch``, 0.5.19 on): ``pp_proxy_tensors`` is ``run_batch``'s
own parameter, ``None`` without pipeline parallelism. The argument is a name,
not a value certain to be something, so the worker is held to
``SupportsPipelineProxy``'s ``PPProxyTensors | None``: one that takes only
``PPProxyTensors`` (its default a non-None sentinel, so the call without the
keyword binds) fails the static checkers (the sibling shape of
``nonone_on_publish_required_good``, whose ``on_publish=partial(...)`` is never
``None``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.forward_batch_info import PPProxyTensors
    from sglang.srt.server_args import ServerArgs

    #: The stage's empty proxy tensors (a sentinel: the worker never expects None).
    EMPTY_PROXY: PPProxyTensors
else:
    EMPTY_PROXY = object()


# expect: nonone_pp_proxy_required_bad.StagedProxyWorker SpecWorker fail runtime=pass mypy=fail pyright=fail member=forward_batch_generation
class StagedProxyWorker(BaseSpecWorker):
    """Forwards the pipeline stage's proxy tensors, assuming there always are some."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, pp_proxy_tensors: PPProxyTensors = EMPTY_PROXY
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch, pp_proxy_tensors=pp_proxy_tensors)


@SpeculativeAlgorithm.register("SHAPE_NONONE_STAGED_PROXY", supports_overlap=False)
def _staged(server_args: ServerArgs) -> type:
    return StagedProxyWorker
