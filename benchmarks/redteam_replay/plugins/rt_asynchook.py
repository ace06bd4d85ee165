from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class AsyncVerifyHookWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    async def on_verify_complete_cpu(self, num_correct_drafts_per_req, batch_size=0):
        self.accepted = sum(num_correct_drafts_per_req)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_ASYNCHOOK", supports_overlap=True)(lambda sa: AsyncVerifyHookWorker)
