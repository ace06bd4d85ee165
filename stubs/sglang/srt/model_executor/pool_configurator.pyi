from dataclasses import dataclass

@dataclass
class MemoryPoolConfig:
    max_total_num_tokens: int
    max_running_requests: int | None = None
    full_max_total_num_tokens: int | None = None
    swa_max_total_num_tokens: int | None = None
    unified_memory_pool_bytes: int | None = None
    c4_max_total_num_tokens: int = 0
    c128_max_total_num_tokens: int = 0
    c4_state_pool_size: int = 0
    c128_state_pool_size: int = 0
    mem_fraction_static: float | None = None
    unified_total_bytes: int | None = None
