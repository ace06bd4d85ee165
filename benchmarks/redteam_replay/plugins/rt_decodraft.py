"""A draft class given draft_runners by a class decorator; the spec worker keeps
every BaseSpecWorker default."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker


def exposes_runners(cls):
    cls.draft_runners = property(lambda self: [self.model_runner])
    return cls


@exposes_runners
class RunnerExposingDraft(TpModelWorker):
    pass


class DecoratedDraftSpecWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = build_draft_tp_worker(
            server_args=server_args, gpu_id=gpu_id, nccl_port=nccl_port,
            target_model_config=target_worker.model_runner.model_config,
            algo_label="RT_DECODRAFT", draft_worker_cls=RunnerExposingDraft).draft_worker

    def forward_batch_generation(self, batch, *, on_publish=None):
        return self.target_worker.forward_batch_generation(batch)


def register():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    SpeculativeAlgorithm.register("RT_DECODRAFT", supports_overlap=True)(lambda sa: DecoratedDraftSpecWorker)
