"""Value members set as plain instance attributes in __init__ (never declared on the class)."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class InstanceFieldsWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        self.draft_swa_window = int(getattr(server_args, "rt_swa_window", 0))

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    @staticmethod
    def clear_cache_pool():
        pass


class StringWindowWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        self.draft_swa_window = self.window_for

    def window_for(self):
        return 64

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class InstanceLayoutWorker(BaseSpecWorker):
    """draft_parallel_layout (a class variable on BaseSpecWorker) and prewarm_sampling set per instance."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None
        self.draft_parallel_layout = None
        self.prewarm_sampling = target_worker.model_runner.prewarm_sampling

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_INSTFIELDS", supports_overlap=True)(lambda sa: InstanceFieldsWorker)
    SpeculativeAlgorithm.register("RT_INSTWINDOW", supports_overlap=True)(lambda sa: StringWindowWorker)
    SpeculativeAlgorithm.register("RT_INSTLAYOUT", supports_overlap=True)(lambda sa: InstanceLayoutWorker)
