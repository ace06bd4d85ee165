from enum import Enum

import msgspec
from _typeshed import Incomplete

class DraftTPExecution(Enum):
    SINGLE_GROUP = "single_group"
    TARGET_LAYOUT = "target_layout"

class DraftParallelSpec(msgspec.Struct, frozen=True, kw_only=True):
    tp_execution: DraftTPExecution

class DraftParallelLayout(msgspec.Struct, frozen=True, kw_only=True):
    # GroupCoordinator (sglang.srt.distributed.parallel_state) is not stubbed.
    tp_group: Incomplete | None
    attn_tp_size: int
    disable_cp: bool = False
    @property
    def local_dp(self) -> bool: ...
