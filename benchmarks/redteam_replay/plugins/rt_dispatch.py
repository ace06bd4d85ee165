"""A single-file plugin: forward_batch_generation as a singledispatchmethod."""
import functools

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class DispatchingWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    @functools.singledispatchmethod
    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    @forward_batch_generation.register
    def _(self, batch: ScheduleBatch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class DispatchingNoKwWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    @functools.singledispatchmethod
    def forward_batch_generation(self, batch):
        return self.target_worker.forward_batch_generation(batch)

    @forward_batch_generation.register
    def _(self, batch: ScheduleBatch):
        return self.target_worker.forward_batch_generation(batch)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_DISPATCH", supports_overlap=True)(lambda sa: DispatchingWorker)
    SpeculativeAlgorithm.register("RT_DISPATCH_NOKW", supports_overlap=True)(lambda sa: DispatchingNoKwWorker)
