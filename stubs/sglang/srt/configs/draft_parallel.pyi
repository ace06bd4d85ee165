from enum import Enum

from _typeshed import Incomplete

class DraftTPExecution(Enum):
    SINGLE_GROUP = "single_group"
    TARGET_LAYOUT = "target_layout"

# DraftParallelSpec and DraftParallelLayout are frozen, keyword-only
# msgspec.Structs at runtime. The stubs do not subclass msgspec.Struct, so that
# they need nothing installed but the checker (the static-only set-up has no
# msgspec); the keyword-only constructor and read-only fields say the same.
class DraftParallelSpec:
    def __init__(self, *, tp_execution: DraftTPExecution) -> None: ...
    @property
    def tp_execution(self) -> DraftTPExecution: ...

class DraftParallelLayout:
    def __init__(self, *, tp_group: Incomplete | None, attn_tp_size: int, disable_cp: bool = False) -> None: ...
    # GroupCoordinator (sglang.srt.distributed.parallel_state) is not stubbed.
    @property
    def tp_group(self) -> Incomplete | None: ...
    @property
    def attn_tp_size(self) -> int: ...
    @property
    def disable_cp(self) -> bool: ...
    @property
    def local_dp(self) -> bool: ...
