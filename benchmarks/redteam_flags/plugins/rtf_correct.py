"""Fully correct workers."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from spec_protocols import SpecAlgorithmBase


class CorrectAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class RunnersTpWorker(TpModelWorker):
    """A TpModelWorker that also answers ``draft_runners``."""

    @property
    def draft_runners(self):
        return [self.model_runner]


class DraftRunnersTp(BaseSpecWorker):
    """Injects a draft_worker_cls with draft_runners; keeps every default."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="CORRECT_RUNNERS",
            draft_worker_cls=RunnersTpWorker,
        ).draft_worker

    def forward_batch_generation(self, batch, **kwargs):
        raise NotImplementedError


class OverridesModelRunners(BaseSpecWorker):
    """Plain TpModelWorker draft; overrides both readers of draft_runners."""

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="CORRECT_OVERRIDES",
        )
        self._draft_worker = bundle.draft_worker

    def _draft_model_runners(self):
        return (self._draft_worker.model_runner,)

    def weight_update_runners(self):
        return [("draft", r) for r in self._draft_model_runners()]

    def forward_batch_generation(self, batch, on_publish=None, grammar_barrier=None):
        raise NotImplementedError


def register():
    SpeculativeAlgorithm.register("CORRECT_RUNNERS", supports_overlap=True, spec_class=CorrectAlgo)(
        lambda sa: DraftRunnersTp
    )
    SpeculativeAlgorithm.register("CORRECT_OVERRIDES", supports_overlap=True, spec_class=CorrectAlgo)(
        lambda sa: OverridesModelRunners
    )


register()
