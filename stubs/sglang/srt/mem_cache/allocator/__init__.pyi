# Only the name that the workers and spec_protocols import from this package;
# the runtime package re-exports more (see its __all__).
from sglang.srt.mem_cache.allocator.base import BaseTokenToKVPoolAllocator as BaseTokenToKVPoolAllocator
