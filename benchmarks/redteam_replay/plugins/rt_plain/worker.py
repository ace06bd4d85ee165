from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class PlainLookaheadWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None, pp_proxy_tensors=None):
        result = self.target_worker.forward_batch_generation(batch)
        if on_publish is not None:
            on_publish(batch.seq_lens)
        return result


class ForgetfulWorker(BaseSpecWorker):
    """Forgot forward_batch_generation entirely."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch(self, batch):
        return self.target_worker.forward_batch_generation(batch)
