from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class _Common(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None


class RenamedPublishWorker(_Common):
    def forward_batch_generation(self, batch, *, publish=None):
        return self.target_worker.forward_batch_generation(batch)


class NarrowVerifyHookWorker(_Common):
    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def on_verify_complete_cpu(self, num_correct_drafts_per_req):
        self.last = num_correct_drafts_per_req


class WindowMethodWorker(_Common):
    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def draft_swa_window(self):
        return 128


class PositionalBatchWorker(_Common):
    def forward_batch_generation(self, schedule_batch, on_publish=None, **extra):
        return self.target_worker.forward_batch_generation(schedule_batch)
