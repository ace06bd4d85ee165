from enum import IntEnum

from _typeshed import Incomplete

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.model_executor.model_runner import ModelRunner

class CaptureHiddenMode(IntEnum):
    NULL = 0
    LAST = 1
    FULL = 2
    def need_capture(self) -> bool: ...
    def is_full(self) -> bool: ...
    def is_last(self) -> bool: ...
    def __lt__(self, other: CaptureHiddenMode) -> bool: ...  # type: ignore[override]

# A dataclass at runtime with ~150 fields; only the fields read by the workers
# are stubbed, so it is declared as a plain class (a stub @dataclass would
# synthesize a constructor with only these fields). Build one with init_new.
class ForwardBatch:
    # ForwardMode and torch.Tensor are not stubbed.
    forward_mode: Incomplete
    batch_size: int
    input_ids: Incomplete
    req_pool_indices: Incomplete
    seq_lens: Incomplete
    out_cache_loc: Incomplete
    seq_lens_sum: int
    return_logprob: bool
    is_prefill_only: bool
    spec_info: Incomplete | None
    capture_hidden_mode: CaptureHiddenMode
    @classmethod
    def init_new(
        cls,
        batch: ScheduleBatch,
        model_runner: ModelRunner,
        *,
        capture_hidden_mode: CaptureHiddenMode | None = None,
        return_hidden_states_before_norm: bool,
        extend_position_info: Incomplete = None,
        spec_mrope_positions: Incomplete | None = None,
        kv_loc_plan: Incomplete | None = None,
        write_cols: Incomplete | None = None,
    ) -> ForwardBatch: ...

class PPProxyTensors:
    # dict[str, torch.Tensor]
    tensors: dict[str, Incomplete]
    def __init__(self, tensors: dict[str, Incomplete]) -> None: ...
    def __getitem__(self, key: str | slice) -> Incomplete: ...
    def __setitem__(self, key: str, value: Incomplete) -> None: ...
    def __len__(self) -> int: ...
