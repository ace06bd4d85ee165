"""Known upstream noise, from docs/authoring.md: ``TpModelWorker.forward_batch_generation``'s
signature, copied into a subclass.

Plain mypy reports ``[override]`` on the ``def`` line: sglang's
``TpModelWorker`` overrides ``BaseTpWorker.forward_batch_generation(self,
forward_batch: ForwardBatch)`` incompatibly, and mypy repeats that on every
subclass that keeps the signature. The gate passes the class, and so does
pyright. ``tiny_draft/draft.py`` carries the ``# type: ignore[override]``
this file leaves out.
"""

from __future__ import annotations

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, PPProxyTensors


class CountingDraftWorker(TpModelWorker):
    forwards = 0

    def forward_batch_generation(
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
        type(self).forwards += 1
        return super().forward_batch_generation(
            batch,
            forward_batch,
            pp_proxy_tensors,
            is_verify,
            skip_attn_backend_init,
            capture_hidden_mode=capture_hidden_mode,
            return_kv_loc_plan=return_kv_loc_plan,
        )
