from _typeshed import Incomplete

from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import ReqToTokenPool
from sglang.srt.model_executor.forward_batch_info import ForwardBatch

# One request. Only what a worker's hooks read of the request they are handed:
# ``prepare_for_kv_cache_release(req)`` (found with getattr and called with the
# request, batch_result_processor.py SchedulerBatchResultProcessor._prepare_kv_cache_release);
# a plugin annotates that parameter ``Req``.
class Req:
    rid: str

# A dataclass at runtime with ~110 fields; only the fields that the workers
# read are stubbed, so it is declared as a plain class (a stub @dataclass would
# synthesize a constructor with only these fields). The scheduler builds it
# with ScheduleBatch.init_new, which is not stubbed.
class ScheduleBatch:
    # list[Req]; Req is not stubbed.
    reqs: list[Incomplete]
    req_to_token_pool: ReqToTokenPool
    token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator
    model_config: ModelConfig
    enable_overlap: bool
    device: str
    hicache_consumer_index: int
    split_index: int
    split_forward_count: int
    split_forward_batch: ForwardBatch
    # torch.Tensor, ForwardMode, SpeculativeAlgorithm, SpecInput: not stubbed.
    input_ids: Incomplete
    seq_lens: Incomplete
    out_cache_loc: Incomplete
    forward_mode: Incomplete
    spec_algorithm: Incomplete
    spec_info: Incomplete | None
    return_logprob: bool
    is_prefill_only: bool
    seq_lens_sum: int
    def batch_size(self) -> int: ...
    def is_empty(self) -> bool: ...
