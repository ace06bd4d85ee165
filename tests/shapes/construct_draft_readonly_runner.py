"""An injected draft worker whose ``draft_runner`` is a read-only property.

``build_draft_tp_worker`` builds ``draft_worker_cls`` and then assigns
``draft_worker.draft_runner = draft_model_runner``
(speculative/draft_worker_common.py, build_draft_tp_worker). A draft class
that exposes ``draft_runner`` as a property without a setter (an alias of
``model_runner``) makes that assignment raise ``AttributeError``. What the
factory assigns is read from sglang's source (the contract's ``built_draft``
writes), not listed by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.draft_worker_common import DraftWorkerBundle, build_draft_tp_worker

if TYPE_CHECKING:
    from sglang.srt.configs.load_config import LoadGroup
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: construct_draft_readonly_runner.AliasRunnerDraftWorker DraftWorkerFactory fail runtime=fail mypy=any pyright=any member=draft_runner runtime-decides
# expect: construct_draft_readonly_runner.AliasRunnerDraftWorker DraftWorker any runtime=pass mypy=any pyright=any
class AliasRunnerDraftWorker(TpModelWorker):
    """A lookahead draft worker that names its runner for readers."""

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
        self.lookahead_hits = 0

    @property
    def draft_runner(self) -> ModelRunner:
        return self.model_runner


def build_alias_draft(server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> DraftWorkerBundle:
    return build_draft_tp_worker(
        server_args=server_args,
        gpu_id=gpu_id,
        nccl_port=nccl_port,
        target_model_config=target_worker.model_runner.model_config,
        algo_label="LOOKAHEAD",
        draft_worker_cls=AliasRunnerDraftWorker,
        random_seed=target_worker.random_seed,
    )
