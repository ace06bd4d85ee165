from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class AsyncStepWorker(BaseSpecWorker):
    """An author who thought the scheduler awaits the step."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    async def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class AsyncPrewarmWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    async def prewarm_sampling(self):
        return self.target_worker.model_runner.prewarm_sampling()


# registered at import, as some authors do
SpeculativeAlgorithm.register("RT_ASYNC_STEP", supports_overlap=True)(lambda server_args: AsyncStepWorker)
SpeculativeAlgorithm.register("RT_ASYNC_PREWARM", supports_overlap=True)(lambda server_args: AsyncPrewarmWorker)
