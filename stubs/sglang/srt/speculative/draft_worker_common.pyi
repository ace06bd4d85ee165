from _typeshed import Incomplete

from sglang.srt.configs.load_config import LoadGroup
from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.server_args import ServerArgs

# A frozen msgspec.Struct at runtime; a plain class here (see
# configs/draft_parallel.pyi for why), with the same constructor and read-only
# fields.
class DraftWorkerBundle:
    def __init__(
        self, draft_worker: TpModelWorker, draft_model_runner: ModelRunner, draft_model: Incomplete, resolved_attention_backend: str
    ) -> None: ...
    @property
    def draft_worker(self) -> TpModelWorker: ...
    @property
    def draft_model_runner(self) -> ModelRunner: ...
    # torch.nn.Module
    @property
    def draft_model(self) -> Incomplete: ...
    @property
    def resolved_attention_backend(self) -> str: ...

def resolve_draft_worker_attention_backend(*, algo_label: str | None = None) -> str: ...

# draft_worker_cls is typed type[TpModelWorker] in sglang: any subclass is
# accepted whatever its __init__ takes (spec_protocols.DraftWorkerFactory is
# the precise version of this parameter).
def build_draft_tp_worker(
    *,
    server_args: ServerArgs,
    gpu_id: int,
    nccl_port: int,
    target_model_config: ModelConfig,
    algo_label: str,
    attention_backend_override: str | None = None,
    draft_worker_cls: type[TpModelWorker] = ...,
    random_seed: int | None = None,
    load_group: LoadGroup = ...,
) -> DraftWorkerBundle: ...

# The results are DFlashDraftInputV2 / DFlashVerifyInput / torch.Tensor, and
# the tensors and devices are torch types: none of them is stubbed.
def make_draft_input_v2(*, bonus_tokens: Incomplete, new_seq_lens: Incomplete) -> Incomplete: ...
def make_draft_block_spec_info(*, draft_token_num: int, device: Incomplete) -> Incomplete: ...
def make_draft_sampler_capture_hook(draft_sampler: Incomplete) -> Incomplete: ...
def build_block_pos_offsets(*, length: int, device: Incomplete) -> Incomplete: ...
