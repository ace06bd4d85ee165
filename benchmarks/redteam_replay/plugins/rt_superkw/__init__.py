from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


class PlainDraft(TpModelWorker):
    pass


class DraftingBase(BaseSpecWorker):
    """Builds a PlainDraft; takes no draft_worker_cls."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        b = build_draft_tp_worker(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                                  target_model_config=target_worker.model_runner.model_config,
                                  algo_label="RT_SUPERKW", draft_worker_cls=PlainDraft)
        self._draft_worker = b.draft_worker
        self._runner = b.draft_model_runner

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self):
        return [("draft", self._runner)]

    def _draft_model_runners(self):
        return (self._runner,)


class ConfigurableBase(DraftingBase):
    """The variant that does take draft_worker_cls."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker, draft_worker_cls=PlainDraft):
        BaseSpecWorker.__init__(self)
        self._target_worker = target_worker
        b = build_draft_tp_worker(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                                  target_model_config=target_worker.model_runner.model_config,
                                  algo_label="RT_SUPERKW", draft_worker_cls=draft_worker_cls)
        self._draft_worker = b.draft_worker
        self._runner = b.draft_model_runner


class TunedDraft(TpModelWorker):
    pass


class TunedDraftSpecWorker(DraftingBase):
    def __init__(self, **kwargs):
        super().__init__(**kwargs, draft_worker_cls=TunedDraft)


class ConfiguredDraftSpecWorker(ConfigurableBase):
    def __init__(self, **kwargs):
        super().__init__(**kwargs, draft_worker_cls=TunedDraft)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_SUPERKW_BAD", supports_overlap=True)(lambda sa: TunedDraftSpecWorker)
    SpeculativeAlgorithm.register("RT_SUPERKW_OK", supports_overlap=True)(lambda sa: ConfiguredDraftSpecWorker)
