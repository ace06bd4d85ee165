"""Workers without BaseSpecWorker as a base."""
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker, HiCacheDraftPlan
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import CustomSpecAlgo
from spec_protocols import SpecAlgorithmBase


class BaselessAlgo(SpecAlgorithmBase, CustomSpecAlgo):
    pass


class BaselessFull:
    """Every member the scheduler reads, written out."""

    draft_parallel_layout = None

    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        self.server_args = server_args
        self.target_worker = target_worker
        self.draft_worker = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="BASELESS",
        ).draft_worker
        self._plan = HiCacheDraftPlan()

    # memory / init
    @property
    def preloaded_weights_bytes(self):
        return self.draft_worker.preloaded_weights_bytes

    def alloc_memory_pool(self, memory_pool_config=None, req_to_token_pool=None, token_to_kv_pool_allocator=None):
        self.draft_worker.alloc_memory_pool(
            memory_pool_config=memory_pool_config,
            req_to_token_pool=req_to_token_pool,
            token_to_kv_pool_allocator=token_to_kv_pool_allocator,
        )

    def init_hicache_draft_plan(self):
        self._plan = HiCacheDraftPlan()

    @property
    def hicache_draft_plan(self):
        return self._plan

    @property
    def draft_swa_window(self):
        return 0

    @property
    def primary_draft_kv_pool(self):
        return None

    def _draft_model_runners(self):
        return (self.draft_worker.model_runner,)

    def init_attention_backends(self):
        self.draft_worker.init_attention_backends()

    def init_cuda_graphs(self):
        self.draft_worker.init_cuda_graphs()

    def prewarm_sampling(self):
        return self.target_worker.model_runner.prewarm_sampling()

    # serving
    @property
    def last_shared_read_runner(self):
        return self.target_worker.model_runner

    def forward_batch_generation(self, batch, on_publish=None, grammar_barrier=None, **kwargs):
        raise NotImplementedError

    def on_verify_complete_cpu(self, num_correct_drafts_per_req, batch_size=0):
        pass

    def clear_cache_pool(self):
        pass

    def weight_update_runners(self):
        return [("draft", self.draft_worker.model_runner)]

    def get_confidence_budget_prepare(self):
        return None

    # metrics
    @property
    def graph_memory_usage(self):
        return self.draft_worker.graph_memory_usage

    @property
    def graph_time_usage(self):
        return self.draft_worker.graph_time_usage

    @property
    def weight_load_time(self):
        return self.draft_worker.weight_load_time


class BaselessBorrowsPlan(BaselessFull):
    """Borrows BaseSpecWorker's plan builder; its _draft_model_runners reads
    draft_worker.draft_runners, which a TpModelWorker lacks."""

    init_hicache_draft_plan = BaseSpecWorker.init_hicache_draft_plan
    _build_hicache_draft_plan = BaseSpecWorker._build_hicache_draft_plan
    _draft_model_runners = BaseSpecWorker._draft_model_runners

    @property
    def hicache_draft_plan(self):
        return getattr(self, "_hicache_draft_plan", HiCacheDraftPlan())


# A baseless class missing init_hicache_draft_plan, built without inheritance tricks.
BaselessMissingPlan = type(
    "BaselessMissingPlan",
    (),
    {k: v for k, v in vars(BaselessFull).items() if k not in ("init_hicache_draft_plan", "__dict__", "__weakref__")},
)
BaselessMissingPlan.__module__ = __name__


def _refuse_hicache(sa):
    if sa.enable_hierarchical_cache:
        raise ValueError("BASELESS_* do not support --enable-hierarchical-cache")


def register():
    SpeculativeAlgorithm.register("BASELESS_FULL", supports_overlap=True, spec_class=BaselessAlgo)(
        lambda sa: BaselessFull
    )
    SpeculativeAlgorithm.register(
        "BASELESS_BORROWS", supports_overlap=True, validate_server_args=_refuse_hicache, spec_class=BaselessAlgo
    )(lambda sa: BaselessBorrowsPlan)
    SpeculativeAlgorithm.register(
        "BASELESS_MISSING_PLAN", supports_overlap=True, validate_server_args=_refuse_hicache, spec_class=BaselessAlgo
    )(lambda sa: BaselessMissingPlan)


register()
