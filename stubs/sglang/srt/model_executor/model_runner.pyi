from dataclasses import dataclass

from _typeshed import Incomplete

from sglang.srt.configs.draft_parallel import DraftParallelLayout
from sglang.srt.configs.load_config import LoadGroup
from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, PPProxyTensors
from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
from sglang.srt.server_args import ServerArgs

@dataclass(frozen=True)
class SamplingPrewarmResult:
    sampling_input_bytes: int = 0
    sampling_headroom_bytes: int = 0

@dataclass
class ModelRunnerOutput:
    # Union[LogitsProcessorOutput, PPProxyTensors]; LogitsProcessorOutput
    # (sglang.srt.layers.logits_processor) is not stubbed.
    logits_output: Incomplete | PPProxyTensors
    can_run_graph: bool
    expert_distribution_metrics: Incomplete | None = None
    routed_experts_output: Incomplete | None = None
    indexer_topk_output: Incomplete | None = None

class ModelRunner:
    # Instance attributes set in __init__, alloc_memory_pool, load_model and
    # init_cuda_graphs that the workers and the scheduler read.
    mem_fraction_static: float
    load_group: LoadGroup
    memory_pool_config: MemoryPoolConfig | None
    gpu_id: int
    model_config: ModelConfig
    server_args: ServerArgs
    is_draft_worker: bool
    # get_device().device: an untyped config-bag value (a device string in practice).
    device: Incomplete
    # SpeculativeAlgorithm (sglang.srt.speculative.spec_info) is not stubbed.
    spec_algorithm: Incomplete
    req_to_token_pool: ReqToTokenPool
    token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator
    # A KVCache subclass (sglang.srt.mem_cache.memory_pool), not stubbed.
    token_to_kv_pool: Incomplete
    is_hybrid_swa: bool
    max_total_num_tokens: int
    max_running_requests: int
    weight_load_time: float
    graph_memory_usage: dict[str, float]
    graph_time_usage: dict[str, float]
    # torch.nn.Module and the attention backend are not stubbed.
    model: Incomplete
    attn_backend: Incomplete
    def __init__(
        self,
        model_config: ModelConfig,
        mem_fraction_static: float,
        gpu_id: int,
        nccl_port: int,
        server_args: ServerArgs,
        is_draft_worker: bool = False,
        req_to_token_pool: ReqToTokenPool | None = None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
        memory_pool_config: MemoryPoolConfig | None = None,
        draft_model_idx: int | None = None,
        draft_attention_backend: str | None = None,
        load_group: LoadGroup = ...,
    ) -> None: ...
    @property
    def preloaded_weights_bytes(self) -> int: ...
    def alloc_memory_pool(
        self, memory_pool_config: MemoryPoolConfig | None = None, *, draft_parallel_layout: DraftParallelLayout | None = None
    ) -> None: ...
    def init_attention_backends(self) -> None: ...
    def prewarm_sampling(self) -> SamplingPrewarmResult: ...
    def init_cuda_graphs(self, capture_decode_cuda_graph: bool = True) -> None: ...
    def ensure_decode_cuda_graphs(self, capture_bs: list[int] | None = None) -> None: ...
    def start_startup_weight_load(self) -> None: ...
    def finalize_startup_weight_load(self) -> None: ...
    def forward(
        self,
        forward_batch: ForwardBatch,
        skip_attn_backend_init: bool | None = None,
        pp_proxy_tensors: PPProxyTensors | None = None,
        reinit_attn_backend: bool = False,
        split_forward_count: int = 1,
    ) -> ModelRunnerOutput: ...
    # logits_output is a LogitsProcessorOutput; the result is a torch.Tensor.
    def sample(self, logits_output: Incomplete, forward_batch: ForwardBatch) -> Incomplete: ...
    def compute_logprobs_only(self, logits_output: Incomplete, forward_batch: ForwardBatch) -> None: ...
