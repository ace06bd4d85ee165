"""prewarm_sampling that returns nothing: the scheduler discards its value."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class QuietPrewarmWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def prewarm_sampling(self) -> None:
        self.target_worker.model_runner.prewarm_sampling()


class PrewarmWithArgWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def prewarm_sampling(self, batch_size) -> None:
        self.target_worker.model_runner.prewarm_sampling()


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_QUIET_PREWARM", supports_overlap=True)(lambda sa: QuietPrewarmWorker)
    SpeculativeAlgorithm.register("RT_PREWARM_ARG", supports_overlap=True)(lambda sa: PrewarmWithArgWorker)
