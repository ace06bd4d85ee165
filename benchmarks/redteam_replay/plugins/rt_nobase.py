"""Workers with no base class at all."""


class FreestandingWorker:
    draft_parallel_layout = None

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self._target = target_worker
        self._pools = None

    hicache_draft_plan = None
    primary_draft_kv_pool = None
    draft_swa_window = 0

    @property
    def graph_memory_usage(self):
        return {}

    @property
    def graph_time_usage(self):
        return {}

    @property
    def weight_load_time(self):
        return 0.0

    @property
    def preloaded_weights_bytes(self):
        return 0

    @property
    def last_shared_read_runner(self):
        return self._target.model_runner

    def alloc_memory_pool(self, *, memory_pool_config, req_to_token_pool, token_to_kv_pool_allocator):
        self._pools = (req_to_token_pool, token_to_kv_pool_allocator)

    def init_hicache_draft_plan(self):
        pass

    def init_attention_backends(self):
        pass

    def init_cuda_graphs(self):
        pass

    def prewarm_sampling(self):
        return self._target.model_runner.prewarm_sampling()

    def forward_batch_generation(self, batch, /, *, on_publish=None):
        return self._target.forward_batch_generation(batch)

    def on_verify_complete_cpu(self, counts, /, *, batch_size):
        pass

    def weight_update_runners(self):
        return []

    def clear_cache_pool(self):
        pass


class FreestandingNoBarrierWorker(FreestandingWorker):
    """Runs on the overlap loop but hides last_shared_read_runner."""

    last_shared_read_runner = None

    def __getattribute__(self, name):
        if name == "last_shared_read_runner":
            raise AttributeError(name)
        return object.__getattribute__(self, name)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_FREE", supports_overlap=True)(lambda sa: FreestandingWorker)
    SpeculativeAlgorithm.register("RT_FREE_NOBARRIER", supports_overlap=True)(lambda sa: FreestandingNoBarrierWorker)
