"""validate_server_args that refuses only some of the settings reaching
BaseSpecWorker._build_hicache_draft_plan -> draft_worker.draft_runners."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from spec_protocols import SpecAlgorithmBase


class PartialAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class _PartialBase(BaseSpecWorker):
    label = "PARTIAL"

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label=self.label,
        )
        self._draft_worker = bundle.draft_worker

    @property
    def primary_draft_kv_pool(self):
        return None

    def weight_update_runners(self):
        return [("draft", self._draft_worker.model_runner)]

    def forward_batch_generation(self, batch, **kwargs):
        raise NotImplementedError


class RefusesHiCacheOnly(_PartialBase):
    label = "REFUSES_HICACHE_ONLY"


class RefusesExplicitHostPool(_PartialBase):
    label = "REFUSES_EXPLICIT_HOST_POOL"


class RefusesDecodeOnly(_PartialBase):
    label = "REFUSES_DECODE_ONLY"


def _no_hicache(sa):
    if sa.enable_hierarchical_cache:
        raise ValueError("no hierarchical cache")


def _no_hicache_no_host_pool(sa):
    # Refuses hicache and an explicit host_pool backup, but a decode server
    # with the backup left unset is accepted.
    if sa.enable_hierarchical_cache or sa.enable_unified_cache_external_linker:
        raise ValueError("no hierarchical cache")
    if sa.disaggregation_decode_retraction_backup == "host_pool":
        raise ValueError("no host_pool retraction backup")


def _no_decode(sa):
    if sa.disaggregation_mode == "decode":
        raise ValueError("no PD decode")


def register():
    for name, cls, validate in (
        ("REFUSES_HICACHE_ONLY", RefusesHiCacheOnly, _no_hicache),
        ("REFUSES_EXPLICIT_HOST_POOL", RefusesExplicitHostPool, _no_hicache_no_host_pool),
        ("REFUSES_DECODE_ONLY", RefusesDecodeOnly, _no_decode),
    ):
        SpeculativeAlgorithm.register(
            name,
            supports_overlap=True,
            validate_server_args=validate,
            spec_class=PartialAlgo,
        )(lambda server_args, _cls=cls: _cls)


register()
