"""Validators that refuse by accident, always, with assert, or not at all."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from spec_protocols import SpecAlgorithmBase


class WeirdAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class _WeirdBase(BaseSpecWorker):
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="WEIRD",
        ).draft_worker

    @property
    def primary_draft_kv_pool(self):
        return None

    def weight_update_runners(self):
        return [("draft", self._draft_worker.model_runner)]

    def forward_batch_generation(self, batch, on_publish=None, grammar_barrier=None, **kwargs):
        raise NotImplementedError


class AlwaysRaises(_WeirdBase):
    pass


class AssertRefuses(_WeirdBase):
    pass


class ReturnsFalse(_WeirdBase):
    pass


class RaisesOtherReason(_WeirdBase):
    pass


def _always(server_args):
    raise RuntimeError("WEIRD_ALWAYS is not ready for production yet")


def _assert(server_args):
    assert not server_args.enable_hierarchical_cache, "no hicache"
    assert server_args.disaggregation_mode != "decode", "no PD decode"


def _returns_false(server_args):
    # Author thought returning False refuses the configuration.
    if server_args.enable_hierarchical_cache or server_args.disaggregation_mode == "decode":
        return False
    return True


def _other_reason(server_args):
    # Meant to check the hicache ratio; crashes (TypeError) whenever hicache is
    # on, which refuses it all the same.
    if server_args.enable_hierarchical_cache:
        ratio = server_args.hicache_ratio + "x"  # float + str -> TypeError
        raise ValueError(ratio)
    if server_args.disaggregation_mode == "decode":
        raise ValueError("no PD decode")


@SpeculativeAlgorithm.register(
    "WEIRD_ALWAYS", supports_overlap=True, validate_server_args=_always, spec_class=WeirdAlgo
)
def _f_always(server_args):
    return AlwaysRaises


@SpeculativeAlgorithm.register(
    "WEIRD_ASSERT", supports_overlap=True, validate_server_args=_assert, spec_class=WeirdAlgo
)
def _f_assert(server_args):
    return AssertRefuses


@SpeculativeAlgorithm.register(
    "WEIRD_FALSE", supports_overlap=True, validate_server_args=_returns_false, spec_class=WeirdAlgo
)
def _f_false(server_args):
    return ReturnsFalse


@SpeculativeAlgorithm.register(
    "WEIRD_OTHER", supports_overlap=True, validate_server_args=_other_reason, spec_class=WeirdAlgo
)
def _f_other(server_args):
    return RaisesOtherReason
