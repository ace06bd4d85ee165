from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class SyncPipelineWorker(BaseSpecWorker):
    """Never runs on the overlap loop, so it takes no on_publish."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, pp_proxy_tensors=None):
        return self.target_worker.forward_batch_generation(batch)


class SyncPublishOnlyWorker(BaseSpecWorker):
    """Copied the overlap signature; the synchronous loop passes pp_proxy_tensors=."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class BareSyncWorker:
    """No base; no last_shared_read_runner (read only by the overlap loop's WAR barrier)."""

    draft_parallel_layout = None
    draft_swa_window = 0
    hicache_draft_plan = None
    primary_draft_kv_pool = None
    graph_memory_usage = {}
    graph_time_usage = {}
    weight_load_time = 0.0
    preloaded_weights_bytes = 0

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self.target_worker = target_worker

    def alloc_memory_pool(self, memory_pool_config=None, req_to_token_pool=None,
                          token_to_kv_pool_allocator=None):
        self.req_to_token_pool = req_to_token_pool

    def init_hicache_draft_plan(self):
        pass

    def init_attention_backends(self):
        pass

    def init_cuda_graphs(self):
        pass

    def prewarm_sampling(self):
        return self.target_worker.model_runner.prewarm_sampling()

    def forward_batch_generation(self, batch, pp_proxy_tensors=None):
        return self.target_worker.forward_batch_generation(batch)

    def on_verify_complete_cpu(self, counts, batch_size=0):
        pass

    def weight_update_runners(self):
        return []

    def clear_cache_pool(self):
        pass
