from _typeshed import Incomplete

from sglang.srt.server_args import ServerArgs

class ModelConfig:
    # Instance attributes set in __init__ that the workers read.
    model_path: str
    revision: str | None
    is_draft_model: bool
    speculative_algorithm: str | None
    context_len: int
    vocab_size: int | None
    hf_config: Incomplete
    is_multimodal: bool
    is_hybrid_swa: bool
    def __init__(
        self,
        model_path: str,
        trust_remote_code: bool = True,
        revision: str | None = None,
        context_length: int | None = None,
        model_override_args: str = "{}",
        is_embedding: bool | None = None,
        enable_multimodal: bool | None = None,
        dtype: str = "auto",
        quantization: str | None = None,
        override_config_file: str | None = None,
        is_draft_model: bool = False,
        # Union[str, ModelImpl]; ModelImpl (configs.load_config) is not stubbed.
        model_impl: str | Incomplete = ...,
        sampling_defaults: str = "openai",
        quantize_and_serve: bool = False,
        is_multi_layer_eagle: bool = False,
        encoder_only: bool = False,
        language_only: bool = False,
        language_model_only: bool = False,
        disable_hybrid_swa_memory: bool = False,
        model_config_parser: str = "auto",
        speculative_algorithm: str | None = None,
        is_draft_quantization_explicit: bool = False,
    ) -> None: ...
    @staticmethod
    def from_server_args(
        server_args: ServerArgs,
        model_path: str | None = None,
        model_revision: str | None = None,
        is_draft_model: bool = False,
        context_length: int | None = None,
        **kwargs: Incomplete,
    ) -> ModelConfig: ...
    def get_total_num_attention_heads(self) -> int: ...
    def get_num_attention_heads(self, tensor_parallel_size: int) -> int: ...
    def get_total_num_kv_heads(self) -> int: ...
    def get_num_kv_heads(self, tensor_parallel_size: int, dcp_size: int = 1) -> int: ...
