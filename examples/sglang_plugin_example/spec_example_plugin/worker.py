"""``ExampleWorker``: the speculative worker that sglang's scheduler drives.

It subclasses sglang's ``BaseSpecWorker``, which supplies the lifecycle and
every scheduler-facing member but one: ``forward_batch_generation``, which the
scheduler calls (scheduler.py:4704, 4870) and ``BaseSpecWorker`` does not
define. ``BaseSpecWorker`` reads ``self._target_worker`` and
``self._draft_worker`` without declaring them, so ``__init__`` must set both;
and its ``weight_update_runners`` and ``_draft_model_runners`` (behind
``primary_draft_kv_pool`` and ``init_hicache_draft_plan``) read
``draft_worker.draft_runners``, which this worker's ``TpModelWorker`` draft
lacks, so it overrides those two too.

The algorithm is deliberately trivial: it drafts nothing and runs the target
model alone, which is always correct (zero accepted draft tokens). A real
algorithm would draft with ``self.draft_worker``, verify with the target and
run a draft-extend; the structure around it stays as here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.draft_worker_common import build_draft_tp_worker
from sglang.srt.speculative.eagle_info import EagleDraftInput

from spec_example_plugin.draft import ExampleDraftWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs

__all__ = ["ExampleWorker"]


class ExampleWorker(BaseSpecWorker):
    """Speculative worker for ``EXAMPLE_SPEC``: a target worker plus an injected draft worker."""

    def __init__(
        self,
        server_args: ServerArgs,
        gpu_id: int,
        nccl_port: int,
        target_worker: TpModelWorker,
    ) -> None:
        # The scheduler constructs WorkerClass(server_args=, gpu_id=,
        # nccl_port=, target_worker=) (scheduler.py:1056-1064).
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        # The draft model, built by sglang with our class injected: sglang
        # calls ExampleDraftWorker(server_args=..., gpu_id=..., ...) with the
        # keywords that DraftWorkerFactory describes.
        bundle = build_draft_tp_worker(
            server_args=server_args,
            gpu_id=gpu_id,
            nccl_port=nccl_port,
            target_model_config=target_worker.model_runner.model_config,
            algo_label="EXAMPLE_SPEC",
            draft_worker_cls=ExampleDraftWorker,
            random_seed=target_worker.random_seed,
        )
        self._draft_worker = bundle.draft_worker
        self.draft_model_runner: ModelRunner = bundle.draft_model_runner

    def weight_update_runners(self) -> list[tuple[str, ModelRunner]]:
        """What weight updates apply to. ``BaseSpecWorker``'s default reads
        ``draft_worker.draft_runners``, which a ``TpModelWorker`` draft does
        not have (the gate reports keeping it); sglang's DFlash worker does the
        same as here."""
        return [("draft", self.draft_model_runner)]

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        """The draft's model runners, behind ``primary_draft_kv_pool`` (which
        the scheduler reads at start-up, ``Scheduler.init_disaggregation``) and
        ``init_hicache_draft_plan``. ``BaseSpecWorker``'s returns
        ``tuple(draft_worker.draft_runners)`` for every algorithm sglang does
        not know, as a registered plugin's is (the gate reports keeping it);
        this is the branch sglang takes for DFlash, whose draft is a
        ``TpModelWorker`` too. One override answers both defaults."""
        return (self.draft_model_runner,)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        """Run the target alone: no tokens drafted, none rejected."""
        # A real algorithm drafts with self.draft_worker here, then verifies.
        # on_publish is the overlap scheduler's hook for early sequence-length
        # publication; a worker that publishes nothing early may ignore it.
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        # The target's own result has no draft input; on the overlap loop the
        # scheduler relays it and makes it the batch's spec_info (0.5.23:
        # managers/scheduler.py:4752-4756), so an empty one goes back.
        result.next_draft_input = EagleDraftInput()
        return result
