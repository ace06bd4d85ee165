"""Members used on every server are missing; the validator refuses every
flagged setting, which cannot help."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from spec_protocols import SpecAlgorithmBase


class AllServersAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    pass


def _refuse_flags(sa):
    if sa.enable_hierarchical_cache or sa.enable_unified_cache_external_linker:
        raise ValueError("no hierarchical cache")
    if sa.disaggregation_mode != "null":
        raise ValueError("no PD disaggregation")
    if sa.disaggregation_decode_retraction_backup == "host_pool":
        raise ValueError("no host_pool")


class _Base(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="ALL_SERVERS",
        ).draft_worker

    def forward_batch_generation(self, batch, **kwargs):
        raise NotImplementedError


class NoPrimaryOverride(_Base):
    """Keeps BaseSpecWorker.primary_draft_kv_pool, read by
    Scheduler.init_disaggregation on every server -> draft_runners."""

    def weight_update_runners(self):
        return [("draft", self._draft_worker.model_runner)]


class NoWeightUpdateOverride(_Base):
    """Keeps BaseSpecWorker.weight_update_runners (weight-update requests)."""

    @property
    def primary_draft_kv_pool(self):
        return None


class BadForwardSig(_Base):
    """forward_batch_generation takes no on_publish/grammar_barrier."""

    @property
    def primary_draft_kv_pool(self):
        return None

    def weight_update_runners(self):
        return [("draft", self._draft_worker.model_runner)]

    def forward_batch_generation(self, batch):
        raise NotImplementedError


def register():
    for name, cls in (
        ("ALL_NO_PRIMARY", NoPrimaryOverride),
        ("ALL_NO_WEIGHT_UPDATE", NoWeightUpdateOverride),
        ("ALL_BAD_FORWARD", BadForwardSig),
    ):
        SpeculativeAlgorithm.register(
            name,
            supports_overlap=True,
            validate_server_args=_refuse_flags,
            spec_class=AllServersAlgo,
        )(lambda server_args, _c=cls: _c)


register()
