import abc

from _typeshed import Incomplete

class BaseTokenToKVPoolAllocator(abc.ABC):
    # Instance attributes set in __init__.
    size: int
    page_size: int
    device: str
    @abc.abstractmethod
    def __init__(
        self,
        size: int,
        page_size: int,
        # torch.dtype and KVCache (mem_cache.memory_pool) are not stubbed.
        dtype: Incomplete,
        device: str,
        kvcache: Incomplete,
        need_sort: bool,
    ) -> None: ...
    def available_size(self) -> int: ...
    def get_kvcache(self) -> Incomplete: ...
    @abc.abstractmethod
    def clear(self) -> None: ...
    @abc.abstractmethod
    def alloc(self, need_size: int) -> Incomplete: ...
