import functools

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class BoundStepWorker(BaseSpecWorker):
    """forward_batch_generation exists only on the instance (bound in __init__)."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        self.forward_batch_generation = self._greedy_step

    def _greedy_step(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class FastPathWorker(BaseSpecWorker):
    """The class method is right; __init__ replaces it with a fast path that is not."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        if not getattr(server_args, "rt_disable_fast_path", False):
            self.forward_batch_generation = functools.partial(self._fast_step, True)

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def _fast_step(self, fused, batch):
        return self.target_worker.forward_batch_generation(batch)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_BOUND", supports_overlap=True)(lambda sa: BoundStepWorker)
    SpeculativeAlgorithm.register("RT_FASTPATH", supports_overlap=True)(lambda sa: FastPathWorker)
