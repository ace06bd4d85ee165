from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


class DelegatingDraft:
    """Wraps a real TpModelWorker; everything else is forwarded."""

    def __init__(self, **kwargs):
        self._inner = TpModelWorker(**kwargs)
        self.steps = 0

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["_inner"], name)


class AllowlistDraft:
    """Forwards only what the author thought the draft needs."""

    _FORWARDED = ("model_runner", "alloc_memory_pool", "init_attention_backends",
                  "graph_memory_usage", "graph_time_usage", "weight_load_time",
                  "preloaded_weights_bytes")

    def __init__(self, **kwargs):
        self._inner = TpModelWorker(**kwargs)

    def __getattr__(self, name):
        if name in type(self)._FORWARDED:
            return getattr(self.__dict__["_inner"], name)
        raise AttributeError(f"{type(self).__name__} does not forward {name}")


class _ProxyBase(BaseSpecWorker):
    draft_cls = DelegatingDraft

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
            target_model_config=target_worker.model_runner.model_config,
            algo_label="RT_PROXY", draft_worker_cls=self.draft_cls,
        )
        self._draft_worker = bundle.draft_worker
        self.draft_model_runner = bundle.draft_model_runner

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self):
        return [("draft", self.draft_model_runner)]

    def _draft_model_runners(self):
        return (self.draft_model_runner,)


class ProxyDraftSpecWorker(_ProxyBase):
    draft_cls = DelegatingDraft


class NarrowProxySpecWorker(_ProxyBase):
    draft_cls = AllowlistDraft
