import dataclasses
from collections.abc import Callable
from typing import Any

from _typeshed import Incomplete

from sglang.srt.model_executor.forward_batch_info import PPProxyTensors

# Every field, in runtime order, so that the synthesized constructor matches
# sglang's. Incomplete marks torch tensors/events and sglang types that are not
# stubbed (LogitsProcessorOutput, SpecInput, KVLocPlan, TopkCaptureOutput,
# ExpertDistributionMetrics, FpmTiming, ScheduledRequestMetrics,
# HostAuxiliaryOutput, HostCopyDone).
@dataclasses.dataclass
class GenerationBatchResult:
    logits_output: Incomplete | None = None
    pp_hidden_states_proxy_tensors: PPProxyTensors | None = None
    # Union[torch.Tensor, List[torch.Tensor], List[List[int]]]
    next_token_ids: Incomplete | list[list[int]] | None = None
    num_correct_drafts: int = 0
    num_correct_drafts_per_req_cpu: list[int] | None = None
    num_block_accept_tokens: int = 0
    num_cap_tokens: int = 0
    accept_length_per_req_cpu: list[int] | None = None
    dllm_algo_state: list[Any] | None = None
    can_run_cuda_graph: bool = False
    skipped_output_comm: bool = False
    extend_input_len_per_req: list[int] | None = None
    extend_logprob_start_len_per_req: list[int] | None = None
    copy_done: Incomplete | None = None
    delay_sample_func: Callable[[], GenerationBatchResult] | None = None
    future_indices: Incomplete | None = None
    speculative_num_draft_tokens: int | None = None
    speculative_output_stride: int | None = None
    num_non_draft_tokens_per_req: int = 1
    grammar_advanced: bool = False
    grammar_retained_tokens: list[Incomplete] | None = None
    accept_lens: Incomplete | None = None
    block_accept_lens: Incomplete | None = None
    cap_lens: Incomplete | None = None
    new_seq_lens: Incomplete | None = None
    next_draft_input: Incomplete | None = None
    next_verify_chain: Incomplete | None = None
    next_verify_parent_list: Incomplete | None = None
    next_verify_top_scores_index: Incomplete | None = None
    spec_verify_out_cache_loc: Incomplete | None = None
    kv_loc_plan: Incomplete | None = None
    accept_index: Incomplete | None = None
    prepared_draft_extend_inputs: tuple[Incomplete, Incomplete, Incomplete] | None = None
    extra_keep_alive_refs: list[Any] | None = None
    routed_experts_output: Incomplete | None = None
    indexer_topk_output: Incomplete | None = None
    expert_distribution_metrics: Incomplete | None = None
    fpm_timing: Incomplete | None = None
    fpm_scheduled_requests: Incomplete | None = None
    auxiliary_host_output: Incomplete | None = None
    @property
    def has_sampled_token_ids(self) -> bool: ...
    def get_num_generated_tokens(self, batch_size: int) -> int: ...
    def copy_to_cpu(self, return_logprob: bool, return_hidden_states: bool = True) -> None: ...
    def copy_auxiliary_output_to_cpu(self) -> None: ...
    @classmethod
    def from_pp_proxy(
        cls, logits_output: Incomplete, next_pp_outputs: PPProxyTensors, can_run_cuda_graph: bool
    ) -> GenerationBatchResult: ...
