"""A kept default's need behind server flags, and a registration that refuses them.

sglang 0.5.23's ``BaseSpecWorker.init_hicache_draft_plan`` calls
``_build_hicache_draft_plan``, which returns early unless
``get_memory().enable_hierarchical_cache``,
``get_memory().enable_unified_cache_external_linker`` or
``get_disagg().disaggregation_decode_retraction_backup == "host_pool"``
(speculative/base_spec_worker.py); only then does it reach
``_draft_model_runners`` and read ``draft_worker.draft_runners``, which a
``TpModelWorker`` draft lacks. Both workers below override the other defaults
that read it (``weight_update_runners``, ``primary_draft_kv_pool``) and keep
``init_hicache_draft_plan``; both run on the synchronous loop only
(``supports_overlap=False``), where the scheduler hands back the target's
result. One is registered with a ``validate_server_args`` that refuses the
three settings as written. That does not rule the read out: the retraction
backup is declared with no value, and sglang decides it at start-up
(``resolve_decode_retraction_backup``, mem_cache/kv_cache_builder.py), so a
decode server the validator accepts may get ``host_pool`` without asking.
Both fail under the static checkers, whose finding names the flags; the
replay, which starts no such server, passes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo

from spec_protocols import SpecAlgorithmBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: reg_flag_refused_need.FlagShapeAlgorithm SpecAlgorithm pass runtime=pass replay=pass mypy=pass pyright=pass
class FlagShapeAlgorithm(SpecAlgorithmBase, CustomSpecAlgo):
    """The algorithm object both registrations use: everything the scheduler calls."""


class _KeepsHicachePlan(BaseSpecWorker):
    """Keeps init_hicache_draft_plan; overrides the defaults that read draft_runners on every server."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_FLAG",
        )
        self._draft_worker = bundle.draft_worker

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return []  # this algorithm's draft takes no weight updates

    @property
    def primary_draft_kv_pool(self) -> object | None:
        return None

    def forward_batch_generation(self, batch: ScheduleBatch, *, pp_proxy_tensors: Any = None) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)


# expect: reg_flag_refused_need.RefusesHicacheWorker SpecWorker fail runtime=pass replay=pass mypy=fail pyright=fail member=init_hicache_draft_plan
class RefusesHicacheWorker(_KeepsHicachePlan):
    """Registered with a validate_server_args that refuses the three settings as written (not sglang's own choice)."""


# expect: reg_flag_refused_need.AllowsHicacheWorker SpecWorker fail runtime=pass replay=pass mypy=fail pyright=fail member=init_hicache_draft_plan
class AllowsHicacheWorker(_KeepsHicachePlan):
    """Registered with no such refusal: a server started with --enable-hierarchical-cache reads draft_runners."""


def _no_hierarchical_cache(server_args: ServerArgs) -> None:
    if (
        server_args.enable_hierarchical_cache
        or server_args.enable_unified_cache_external_linker
        or server_args.disaggregation_decode_retraction_backup == "host_pool"
    ):
        raise ValueError("SHAPE_FLAG_REFUSES keeps no hierarchical-cache backup of its draft")


@SpeculativeAlgorithm.register(
    "SHAPE_FLAG_REFUSES", supports_overlap=False, spec_class=FlagShapeAlgorithm, validate_server_args=_no_hierarchical_cache
)
def _refuses(server_args: ServerArgs) -> type:
    return RefusesHicacheWorker


@SpeculativeAlgorithm.register("SHAPE_FLAG_ALLOWS", supports_overlap=False, spec_class=FlagShapeAlgorithm)
def _allows(server_args: ServerArgs) -> type:
    return AllowsHicacheWorker
