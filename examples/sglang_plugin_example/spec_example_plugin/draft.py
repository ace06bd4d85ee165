"""``ExampleDraftWorker``: the draft model's worker, injected with ``draft_worker_cls=``.

A pass-through subclass of sglang's ``TpModelWorker``. Its constructor accepts
exactly the keywords that sglang's ``build_draft_tp_worker`` passes
(``spec_protocols.DRAFT_WORKER_CTOR_KEYWORDS``), so it conforms to
``spec_protocols.DraftWorkerFactory``; everything else is inherited, so it
conforms to ``spec_protocols.DraftWorker``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker

if TYPE_CHECKING:
    from sglang.srt.configs.load_config import LoadGroup
    from sglang.srt.server_args import ServerArgs

__all__ = ["ExampleDraftWorker"]


class ExampleDraftWorker(TpModelWorker):
    """A ``TpModelWorker`` that records how many times it was built; otherwise unchanged."""

    #: How many instances were constructed (the example's one visible behaviour).
    instances: int = 0

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
        # Keyword-only, because build_draft_tp_worker passes every one by
        # keyword (draft_worker_common.py:92); **kwargs keeps TpModelWorker's
        # other parameters reachable for other callers.
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
        type(self).instances += 1
