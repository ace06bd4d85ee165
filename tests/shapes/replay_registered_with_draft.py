"""A registered worker whose draft is built through ``build_draft_tp_worker``, as sglang builds it.

The worker injects a pass-through ``TpModelWorker`` subclass as
``draft_worker_cls`` (speculative/draft_worker_common.py
``build_draft_tp_worker``) and overrides the two defaults that read
``draft_runners``, which a ``TpModelWorker`` has not. The replay builds the
worker with the scheduler's call and the draft through sglang's own factory
(a stand-in loads no model), then reads each member from both instances.
"""

from __future__ import annotations

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.managers.utils import GenerationBatchResult
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm


# expect: replay_registered_with_draft.EchoDraftWorker DraftWorker pass runtime=pass replay=pass mypy=pass pyright=pass
# expect: replay_registered_with_draft.EchoDraftWorker DraftWorkerFactory pass runtime=pass replay=pass mypy=pass pyright=pass
class EchoDraftWorker(TpModelWorker):
    """Takes whatever TpModelWorker takes."""


# expect: replay_registered_with_draft.EchoHostWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class EchoHostWorker(BaseSpecWorker):
    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target = target_worker
        self._bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_config,
            algo_label="SHAPE_REPLAY_ECHO",
            draft_worker_cls=EchoDraftWorker,
        )

    @property
    def target_worker(self) -> TpModelWorker:
        return self._target

    @property
    def draft_worker(self) -> TpModelWorker:
        return self._bundle.draft_worker

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        return [("draft", self._bundle.draft_worker.model_runner)]

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        return (self._bundle.draft_worker.model_runner,)

    def forward_batch_generation(self, batch: ScheduleBatch, on_publish=None) -> GenerationBatchResult:
        result = self._target.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


def register() -> None:
    @SpeculativeAlgorithm.register("SHAPE_REPLAY_ECHO", supports_overlap=True)
    def _factory(server_args: ServerArgs) -> type[EchoHostWorker]:
        return EchoHostWorker
