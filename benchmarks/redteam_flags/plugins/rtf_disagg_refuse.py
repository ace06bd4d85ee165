"""Validators about PD disaggregation; the flag-only gap is hierarchical
cache / host_pool retraction."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from spec_protocols import SpecAlgorithmBase


class DisaggAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class _Gap(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="DISAGG",
        ).draft_worker

    @property
    def primary_draft_kv_pool(self):
        return self._draft_worker.model_runner.token_to_kv_pool

    def weight_update_runners(self):
        return [("draft", self._draft_worker.model_runner)]

    def forward_batch_generation(self, batch, **kwargs):
        raise NotImplementedError


class RefusesAllDisagg(_Gap):
    """Refuses PD prefill and decode but not hierarchical cache."""


class RefusesDecodeAndHiCache(_Gap):
    """Refuses decode and hierarchical cache: prefill is accepted and safe."""


class RefusesPrefillOnly(_Gap):
    """Refuses prefill only (the harmless mode)."""


def _no_disagg(sa):
    if sa.disaggregation_mode in ("prefill", "decode"):
        raise ValueError("no PD disaggregation")


def _no_decode_no_hicache(sa):
    if sa.disaggregation_mode == "decode":
        raise ValueError("no PD decode")
    if sa.enable_hierarchical_cache or sa.enable_unified_cache_external_linker:
        raise ValueError("no hierarchical cache")


def _no_prefill(sa):
    if sa.disaggregation_mode == "prefill":
        raise ValueError("no PD prefill")


def register():
    for name, cls, v in (
        ("DISAGG_REFUSES_ALL", RefusesAllDisagg, _no_disagg),
        ("DISAGG_REFUSES_DECODE_HICACHE", RefusesDecodeAndHiCache, _no_decode_no_hicache),
        ("DISAGG_REFUSES_PREFILL", RefusesPrefillOnly, _no_prefill),
    ):
        SpeculativeAlgorithm.register(name, supports_overlap=True, validate_server_args=v, spec_class=DisaggAlgo)(
            lambda sa, _c=cls: _c
        )


register()
