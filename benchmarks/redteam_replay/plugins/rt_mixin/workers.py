"""Cooperative **kwargs mixins."""
import logging

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


class MetricsMixin:
    def __init__(self, **kwargs):
        self.metrics_log = logging.getLogger(type(self).__name__)
        super().__init__(**kwargs)


class LeakyMixinWorker(MetricsMixin, BaseSpecWorker):
    """Passes gpu_id and nccl_port on to BaseSpecWorker.__init__, which takes none."""

    def __init__(self, *, server_args, target_worker, **kwargs):
        self._target_worker = target_worker
        self._draft_worker = None
        super().__init__(**kwargs)

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class TidyMixinWorker(MetricsMixin, BaseSpecWorker):
    def __init__(self, *, server_args, gpu_id, nccl_port, target_worker, **kwargs):
        self._target_worker = target_worker
        self._draft_worker = None
        super().__init__(**kwargs)

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class SeedMixin:
    def __init__(self, *, random_seed=None, **kwargs):
        self.seed = random_seed or 0
        super().__init__(**kwargs)


class PortlessMixin:
    """Drops the ports it 'owns' -- including nccl_port, which TpModelWorker requires."""

    def __init__(self, *, nccl_port=None, **kwargs):
        self.owned_port = nccl_port
        super().__init__(**kwargs)


class MixinDraft(SeedMixin, PortlessMixin, TpModelWorker):
    pass


class MixinDraftSpecWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        b = build_draft_tp_worker(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                                  target_model_config=target_worker.model_runner.model_config,
                                  algo_label="RT_MIXIN_DRAFT", draft_worker_cls=MixinDraft)
        self._draft_worker = b.draft_worker
        self._runner = b.draft_model_runner

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self):
        return [("draft", self._runner)]

    def _draft_model_runners(self):
        return (self._runner,)
