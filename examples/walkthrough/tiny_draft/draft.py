"""``TinyDraftWorker``: the draft model's worker, injected with ``draft_worker_cls=``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker

if TYPE_CHECKING:
    from sglang.srt.configs.load_config import LoadGroup
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, PPProxyTensors
    from sglang.srt.server_args import ServerArgs

__all__ = ["TinyDraftWorker"]


class TinyDraftWorker(TpModelWorker):
    """A ``TpModelWorker`` that counts its draft forward passes."""

    def __init__(
        self,
        *,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool,
        random_seed: int | None,
        load_group: LoadGroup,
        context_length: int | None,
        draft_attention_backend: str | None,
        **kwargs: Any,
    ) -> None:
        # Exactly the keywords build_draft_tp_worker passes (DraftWorkerFactory);
        # **kwargs keeps TpModelWorker's others reachable.
        super().__init__(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            is_draft_worker=is_draft_worker,
            random_seed=random_seed,
            load_group=load_group,
            context_length=context_length,
            draft_attention_backend=draft_attention_backend,
            **kwargs,
        )
        self.draft_forwards = 0

    # TpModelWorker's own signature, copied. sglang's TpModelWorker overrides
    # BaseTpWorker.forward_batch_generation(self, forward_batch: ForwardBatch)
    # incompatibly, and mypy reports that on every subclass that repeats the
    # signature: an error of sglang's, not of this class (docs/authoring.md,
    # "Known upstream noise"). pyright reports nothing here.
    def forward_batch_generation(  # type: ignore[override]
        self,
        batch: ScheduleBatch | None,
        forward_batch: ForwardBatch | None = None,
        pp_proxy_tensors: PPProxyTensors | None = None,
        is_verify: bool = False,
        skip_attn_backend_init: bool | None = None,
        *,
        capture_hidden_mode: CaptureHiddenMode | None = None,
        return_kv_loc_plan: bool = False,
    ) -> GenerationBatchResult:
        self.draft_forwards += 1
        return super().forward_batch_generation(
            batch,
            forward_batch,
            pp_proxy_tensors,
            is_verify,
            skip_attn_backend_init,
            capture_hidden_mode=capture_hidden_mode,
            return_kv_loc_plan=return_kv_loc_plan,
        )
