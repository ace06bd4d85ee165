"""``PortableDraftWorker``: a pass-through ``TpModelWorker`` that both releases' ``build_draft_tp_worker`` can build.

0.5.23 passes ``load_group=`` and 0.5.21 does not (nor has ``LoadGroup``):
the constructor names the keywords both pass and takes the rest through
``**kwargs``, on to ``TpModelWorker``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs


class PortableDraftWorker(TpModelWorker):
    def __init__(
        self,
        *,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        is_draft_worker: bool,
        random_seed: int | None,
        context_length: int | None,
        draft_attention_backend: str | None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            is_draft_worker=is_draft_worker,
            random_seed=random_seed,
            context_length=context_length,
            draft_attention_backend=draft_attention_backend,
            **kwargs,
        )
