"""Constructor keywords; the algorithm class writes the three members
CustomSpecAlgo lacks by hand instead of using SpecAlgorithmBase."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo


class CtorAlgo(CustomSpecAlgo):
    def carries_draft_hidden_states(self) -> bool:
        return False

    def need_topk(self) -> bool:
        return False

    def create_future_map(self, device, req_to_token_pool, needs_cpu_seq_lens=True, needs_confidence_relay=False):
        from sglang.srt.managers.overlap_utils import FutureMap

        return FutureMap(device, self, req_to_token_pool, needs_cpu_seq_lens, needs_confidence_relay)


class _Common(BaseSpecWorker):
    def _setup(self, server_args, gpu_id, nccl_port, target_worker):
        BaseSpecWorker.__init__(self)
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="CTOR",
        ).draft_worker

    def _draft_model_runners(self):
        return (self._draft_worker.model_runner,)

    def weight_update_runners(self):
        return [("draft", self._draft_worker.model_runner)]

    def forward_batch_generation(self, batch, **kwargs):
        raise NotImplementedError


class WrongCtorKw(_Common):
    def __init__(self, server_args, gpu_id, nccl_port, tp_worker):
        self._setup(server_args, gpu_id, nccl_port, tp_worker)


class CtorKwOnly(_Common):
    def __init__(self, *, server_args, gpu_id, nccl_port, target_worker, **extra):
        self._setup(server_args, gpu_id, nccl_port, target_worker)


def _no_disagg(sa):
    if sa.disaggregation_mode != "null":
        raise ValueError("CTOR algorithms do not support PD disaggregation")


def register():
    SpeculativeAlgorithm.register("CTOR_WRONG_KW", supports_overlap=True, validate_server_args=_no_disagg, spec_class=CtorAlgo)(
        lambda sa: WrongCtorKw
    )
    SpeculativeAlgorithm.register("CTOR_KW_ONLY", supports_overlap=True, spec_class=CtorAlgo)(
        lambda sa: CtorKwOnly
    )


register()
