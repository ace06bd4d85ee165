from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from spec_protocols import SpecWorkerBase


class ScaffoldDraft(TpModelWorker):
    def __init__(self, *, server_args, gpu_id, nccl_port, is_draft_worker, random_seed,
                 load_group, context_length, draft_attention_backend, **kwargs):
        super().__init__(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                         is_draft_worker=is_draft_worker, random_seed=random_seed,
                         load_group=load_group, context_length=context_length,
                         draft_attention_backend=draft_attention_backend, **kwargs)


class StrictAttnDraft(ScaffoldDraft):
    def init_attention_backends(self, backend_name):
        return super().init_attention_backends()


class ScaffoldWorker(SpecWorkerBase):
    draft_cls = ScaffoldDraft

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        bundle = build_draft_tp_worker(server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
                                       target_model_config=target_worker.model_runner.model_config,
                                       algo_label="RT_SCAFFOLD", draft_worker_cls=self.draft_cls)
        super().__init__(target_worker=target_worker, draft_worker=bundle.draft_worker)
        self.draft_model_runner = bundle.draft_model_runner

    def forward_batch_generation(self, batch, /, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)

    def weight_update_runners(self):
        return [("draft", self.draft_model_runner)]


class StrictAttnWorker(ScaffoldWorker):
    draft_cls = StrictAttnDraft
