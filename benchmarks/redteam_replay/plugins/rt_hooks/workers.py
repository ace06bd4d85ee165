"""Members installed by __init_subclass__ and by a class decorator."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


class StepDrivenBase(BaseSpecWorker):
    """Subclasses write step(); the base installs forward_batch_generation."""

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        step = cls.__dict__.get("step")
        if step is not None:
            def forward_batch_generation(self, batch, *, on_publish=None, pp_proxy_tensors=None):
                out = step(self, batch)
                if on_publish is not None:
                    on_publish(batch.seq_lens)
                return out

            cls.forward_batch_generation = forward_batch_generation

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None


class AutoStepWorker(StepDrivenBase):
    def step(self, batch):
        return self.target_worker.forward_batch_generation(batch)


def _noop(self, *a, **k):
    return None


def with_scheduler_hooks(cls):
    """Fill in every scheduler member the class did not write."""
    defaults = {
        "alloc_memory_pool": lambda self, memory_pool_config=None, req_to_token_pool=None, token_to_kv_pool_allocator=None: None,
        "init_hicache_draft_plan": lambda self: None,
        "init_attention_backends": lambda self: None,
        "init_cuda_graphs": lambda self: None,
        "clear_cache_pool": lambda self: None,
        "prewarm_sampling": lambda self: self.target.model_runner.prewarm_sampling(),
        "on_verify_complete_cpu": lambda self, counts, batch_size=0: None,
        "weight_update_runners": lambda self: [],
        "graph_memory_usage": property(lambda self: {}),
        "graph_time_usage": property(lambda self: {}),
        "weight_load_time": property(lambda self: 0.0),
        "preloaded_weights_bytes": property(lambda self: 0),
        "hicache_draft_plan": property(lambda self: None),
        "primary_draft_kv_pool": property(lambda self: None),
        "last_shared_read_runner": property(lambda self: self.target.model_runner),
        "draft_parallel_layout": None,
        "draft_swa_window": 0,
    }
    for name, value in defaults.items():
        if name not in cls.__dict__:
            setattr(cls, name, value)
    return cls


@with_scheduler_hooks
class DecoratedHooksWorker:
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self.target = target_worker

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target.forward_batch_generation(batch)


def with_timing(cls):
    """Adds timing accessors -- as methods, where the scheduler reads values."""
    cls.weight_load_time = lambda self: 0.0
    cls.graph_time_usage = lambda self: {}
    return cls


@with_timing
@with_scheduler_hooks
class DecoratedTimingWorker:
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self.target = target_worker

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target.forward_batch_generation(batch)
