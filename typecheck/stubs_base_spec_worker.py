"""The stubbed ``BaseSpecWorker`` keeps sglang's ``draft_worker`` union, and its consequence.

sglang facts (sglang 0.5.23, sglang/srt/speculative/base_spec_worker.py):
- ``BaseSpecWorker.draft_worker`` is ``Optional[EagleDraftWorkerBase |
  TpModelWorker]``; ``NGRAMWorker`` and ``UnoWorkerV2`` return ``None``.
- ``BaseSpecWorker.weight_update_runners`` reads ``draft_worker.draft_runners``,
  which only ``EagleDraftWorkerBase`` has: on the union that is an error (one of
  the 25 pyright errors in base_spec_worker.py itself).
- ``note_request_finished`` takes ``rid`` and ``natural_stop`` keyword-only.
- ``hicache_draft_plan`` is a frozen ``HiCacheDraftPlan`` whose ``mode`` is a
  ``HiCacheDraftMode``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.model_runner import ModelRunner, SamplingPrewarmResult
from sglang.srt.speculative.base_spec_worker import (
    BaseSpecWorker,
    EagleDraftWorkerBase,
    HiCacheDraftMode,
    HiCacheDraftPlan,
)
from typing_extensions import assert_type

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


def reads(worker: BaseSpecWorker) -> None:
    assert_type(worker.draft_worker, EagleDraftWorkerBase | TpModelWorker | None)
    assert_type(worker.target_worker, TpModelWorker)
    assert_type(worker.hicache_draft_plan, HiCacheDraftPlan)
    assert_type(worker.hicache_draft_plan.mode, HiCacheDraftMode)
    assert_type(worker.prewarm_sampling(), SamplingPrewarmResult)
    assert_type(worker.last_shared_read_runner, ModelRunner)
    assert_type(worker.draft_swa_window, int)
    worker.note_request_finished(rid="r0", natural_stop=True)

    draft = worker.draft_worker
    if isinstance(draft, EagleDraftWorkerBase):
        assert_type(draft.draft_runners, list[ModelRunner])

    if TYPE_CHECKING_INVALID_USAGE:
        if draft is not None:
            # TpModelWorker has no draft_runners.
            draft.draft_runners  # type: ignore[union-attr]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
        worker.note_request_finished("r0", True)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
        worker.hicache_draft_plan.mode = HiCacheDraftMode.FUSED  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
