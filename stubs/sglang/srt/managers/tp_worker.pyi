from abc import ABC, abstractmethod

from _typeshed import Incomplete

from sglang.srt.configs.draft_parallel import DraftParallelLayout
from sglang.srt.configs.load_config import LoadGroup
from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.managers.schedule_batch import ScheduleBatch

# tp_worker.py imports this name from sglang.srt.managers.scheduler, which
# re-exports it; the stub imports it from where it is defined, so that the
# scheduler module (not stubbed) is not shadowed by a one-name stub.
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, PPProxyTensors
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.model_executor.pool_configurator import MemoryPoolConfig
from sglang.srt.server_args import ServerArgs

# The request types (sglang.srt.managers.io_struct) and the weight-sync and
# LoRA results are not stubbed; those members are typed Incomplete.
class BaseTpWorker(ABC):
    @abstractmethod
    def forward_batch_generation(self, forward_batch: ForwardBatch) -> Incomplete: ...
    @property
    @abstractmethod
    def model_runner(self) -> ModelRunner: ...
    def on_verify_complete_cpu(self, num_correct_drafts_per_req: list[int], batch_size: int = 0) -> None: ...
    @property
    def last_shared_read_runner(self) -> ModelRunner: ...
    @property
    def sliding_window_size(self) -> int | None: ...
    @property
    def is_hybrid_swa(self) -> bool: ...
    def get_tokens_per_layer_info(self) -> tuple[Incomplete, Incomplete]: ...
    @property
    def graph_memory_usage(self) -> dict[str, float]: ...
    @property
    def graph_time_usage(self) -> dict[str, float]: ...
    @property
    def weight_load_time(self) -> float: ...
    @property
    def preloaded_weights_bytes(self) -> int: ...
    def get_pad_input_ids_func(self) -> Incomplete: ...
    def get_memory_pool(self) -> tuple[ReqToTokenPool, BaseTokenToKVPoolAllocator]: ...
    def init_weights_update_group(self, recv_req: Incomplete) -> tuple[Incomplete, Incomplete]: ...
    def destroy_weights_update_group(self, recv_req: Incomplete) -> tuple[Incomplete, Incomplete]: ...
    def init_weights_send_group_for_remote_instance(self, recv_req: Incomplete) -> tuple[Incomplete, Incomplete]: ...
    def send_weights_to_remote_instance(self, recv_req: Incomplete) -> tuple[Incomplete, Incomplete]: ...
    def deserialize_own_rank(self, serialized_named_tensors: Incomplete) -> Incomplete: ...
    def get_weights_by_name(self, recv_req: Incomplete) -> Incomplete: ...
    def load_lora_adapter(self, recv_req: Incomplete) -> Incomplete: ...
    def unload_lora_adapter(self, recv_req: Incomplete) -> Incomplete: ...
    def load_lora_adapter_from_tensors(self, recv_req: Incomplete) -> Incomplete: ...
    def forward_batch_embedding(self, batch: ScheduleBatch) -> tuple[Incomplete, bool]: ...

class TpModelWorker(BaseTpWorker):
    # Instance attributes set in __init__.
    server_args: ServerArgs
    load_group: LoadGroup
    gpu_id: int
    nccl_port: int
    is_draft_worker: bool
    is_multi_layer_eagle: bool
    req_to_token_pool: ReqToTokenPool | None
    token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None
    memory_pool_config: MemoryPoolConfig | None
    context_length: int | None
    draft_attention_backend: str | None
    model_runner_list: list[ModelRunner]
    model_config: ModelConfig
    random_seed: int
    enable_overlap: bool
    enable_spec: bool
    # Tokenizer/processor, torch device, GroupCoordinators, LayerDoneCounter
    # and DllmAlgorithm are not stubbed.
    tokenizer: Incomplete
    processor: Incomplete
    device: Incomplete
    pp_group: Incomplete
    world_group: Incomplete
    hicache_layer_transfer_counter: Incomplete | None
    dllm_algorithm: Incomplete | None
    def __init__(
        self,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool = False,
        req_to_token_pool: ReqToTokenPool | None = None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
        memory_pool_config: MemoryPoolConfig | None = None,
        is_multi_layer_eagle: bool = False,
        context_length: int | None = None,
        draft_attention_backend: str | None = None,
        random_seed: int | None = None,
        load_group: LoadGroup = ...,
    ) -> None: ...
    def alloc_memory_pool(
        self,
        memory_pool_config: MemoryPoolConfig | None = None,
        req_to_token_pool: ReqToTokenPool | None = None,
        token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator | None = None,
        *,
        draft_parallel_layout: DraftParallelLayout | None = None,
    ) -> None: ...
    def init_attention_backends(self) -> None: ...
    def init_cuda_graphs(self, capture_decode_cuda_graph: bool = True) -> None: ...
    def ensure_decode_cuda_graphs(self, capture_bs: list[int] | None = None) -> None: ...
    def get_decode_cuda_graph_bs(self) -> list[int]: ...
    def start_startup_weight_load(self) -> None: ...
    def finalize_startup_weight_load(self) -> None: ...
    @property
    def model_runner(self) -> ModelRunner: ...
    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]: ...
    def register_hicache_layer_transfer_counter(self, counter: Incomplete) -> None: ...
    def set_hicache_consumer(self, consumer_index: int) -> None: ...
    def register_hisparse_coordinator(self, coordinator: Incomplete) -> None: ...
    # A 12-tuple (token capacities, limits, seed, device, stream, pool sizes).
    def get_worker_info(self) -> tuple[Incomplete, ...]: ...
    def is_dllm(self) -> bool: ...
    # sglang's own override is incompatible with BaseTpWorker's abstract
    # signature (a different first parameter); the stub mirrors the runtime.
    def forward_batch_generation(  # type: ignore[override]
        self,
        batch: ScheduleBatch | None,
        forward_batch: ForwardBatch | None = None,
        pp_proxy_tensors: PPProxyTensors | None = None,
        is_verify: bool = False,
        skip_attn_backend_init: bool | None = None,
        *,
        capture_hidden_mode: CaptureHiddenMode | None = None,
        return_kv_loc_plan: bool = False,
    ) -> GenerationBatchResult: ...
    def forward_batch_split_prefill(self, batch: ScheduleBatch) -> GenerationBatchResult: ...
