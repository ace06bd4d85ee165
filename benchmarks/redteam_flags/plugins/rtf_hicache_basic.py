"""Flag-only gap: the draft is a plain TpModelWorker (no ``draft_runners``).

The worker overrides everything sglang reads on every server, but keeps
BaseSpecWorker's ``_build_hicache_draft_plan``/``_draft_model_runners``, which
reach ``draft_worker.draft_runners`` only with hierarchical cache or
host-pool retraction backup.
"""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from spec_protocols import SpecAlgorithmBase


class HiBasicAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class _TpDraftWorker(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="HI_BASIC",
        )
        self._draft_worker = bundle.draft_worker
        self.draft_model_runner = bundle.draft_model_runner

    @property
    def primary_draft_kv_pool(self):
        return self.draft_model_runner.token_to_kv_pool

    def weight_update_runners(self):
        return [("draft", self.draft_model_runner)]

    def forward_batch_generation(self, batch, **kwargs):
        return self.target_worker.forward_batch_generation(batch)


class HiNoValidate(_TpDraftWorker):
    """No validate_server_args: hierarchical cache reaches draft_runners."""


class HiRefusesAll(_TpDraftWorker):
    """Same gap, but every setting that reaches it is refused."""


def _refuse_all(server_args):
    if server_args.enable_hierarchical_cache:
        raise ValueError("HI_REFUSES_ALL does not support --enable-hierarchical-cache")
    if server_args.enable_unified_cache_external_linker:
        raise ValueError("HI_REFUSES_ALL does not support the unified cache linker")
    if server_args.disaggregation_mode == "decode":
        raise ValueError("HI_REFUSES_ALL cannot run on a PD decode server")
    if server_args.disaggregation_decode_retraction_backup == "host_pool":
        raise ValueError("HI_REFUSES_ALL does not support host_pool retraction")


def register():
    SpeculativeAlgorithm.register(
        "HI_NO_VALIDATE", supports_overlap=True, spec_class=HiBasicAlgo
    )(lambda server_args: HiNoValidate)
    SpeculativeAlgorithm.register(
        "HI_REFUSES_ALL",
        supports_overlap=True,
        validate_server_args=_refuse_all,
        spec_class=HiBasicAlgo,
    )(lambda server_args: HiRefusesAll)


register()
