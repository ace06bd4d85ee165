"""A draft whose constructor renames a keyword build_draft_tp_worker passes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


class ContextDraft(TpModelWorker):
    def __init__(self, *, server_args, gpu_id, nccl_port, is_draft_worker=True,
                 random_seed=None, load_group=None, max_context=None,
                 draft_attention_backend=None):
        kw = {} if load_group is None else {"load_group": load_group}
        super().__init__(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                         is_draft_worker=is_draft_worker, random_seed=random_seed,
                         context_length=max_context,
                         draft_attention_backend=draft_attention_backend, **kw)


class ContextDraftSpecWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        b = build_draft_tp_worker(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                                  target_model_config=target_worker.model_runner.model_config,
                                  algo_label="RT_RENAMED", draft_worker_cls=ContextDraft)
        self._draft_worker = b.draft_worker
        self._runner = b.draft_model_runner

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self):
        return [("draft", self._runner)]

    def _draft_model_runners(self):
        return (self._runner,)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_RENAMED", supports_overlap=True)(lambda sa: ContextDraftSpecWorker)
