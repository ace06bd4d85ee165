from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


class BareDraft(TpModelWorker):
    pass


class RunnersDraft(TpModelWorker):
    """Gives BaseSpecWorker's defaults the draft_runners they read."""

    @property
    def draft_runners(self):
        return [self.model_runner]


class _Built(BaseSpecWorker):
    draft_cls = BareDraft

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        b = build_draft_tp_worker(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                                  target_model_config=target_worker.model_runner.model_config,
                                  algo_label=type(self).__name__, draft_worker_cls=self.draft_cls)
        self._draft_worker = b.draft_worker
        self.draft_model_runner = b.draft_model_runner

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


class KeptDefaultsWorker(_Built):
    """Keeps weight_update_runners / primary_draft_kv_pool: TpModelWorker has no draft_runners."""


class RunnersDraftSpecWorker(_Built):
    draft_cls = RunnersDraft


class HicacheDefaultWorker(_Built):
    """Overrides what default flags reach; keeps init_hicache_draft_plan, which only
    touches draft_runners with hierarchical cache / unified linker / host_pool backup."""

    def weight_update_runners(self):
        return [("draft", self.draft_model_runner)]

    @property
    def primary_draft_kv_pool(self):
        return self.draft_model_runner.token_to_kv_pool
