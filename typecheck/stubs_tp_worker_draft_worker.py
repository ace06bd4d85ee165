"""``TpModelWorker`` is a ``DraftWorker`` and a ``DraftWorkerFactory``, through the stubs.

sglang facts (sglang 0.5.23):
- DFlash and DSpark drive their draft model through a plain ``TpModelWorker``
  (``BaseSpecWorker.draft_worker`` is typed ``EagleDraftWorkerBase |
  TpModelWorker | None``, base_spec_worker.py), so ``TpModelWorker`` must
  satisfy ``spec_protocols.DraftWorker``.
- ``build_draft_tp_worker`` constructs ``draft_worker_cls(server_args=...,
  gpu_id=..., nccl_port=..., is_draft_worker=True, random_seed=...,
  load_group=..., context_length=..., draft_attention_backend=...)``
  (draft_worker_common.py:92); ``TpModelWorker.__init__`` (tp_worker.py)
  accepts all eight keywords, so the class object is a
  ``DraftWorkerFactory[TpModelWorker]``.
- ``TpModelWorker`` has no ``draft_runners`` (``BaseSpecWorker
  .weight_update_runners`` reads it on the draft worker; DFlash/DSpark override
  it for that reason).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from sglang.srt.managers.tp_worker import TpModelWorker

from spec_protocols import DraftWorker, DraftWorkerFactory

# TYPE_CHECKING, not False: mypy skips a block it can prove unreachable, so
# `= False` would hide every expected error below (and fail the run the other
# way, through unused ignores). At runtime the block never executes.
TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


def as_draft_worker(worker: TpModelWorker) -> DraftWorker:
    return worker


factory: DraftWorkerFactory[TpModelWorker] = TpModelWorker


def draft_runners_of(worker: TpModelWorker) -> object:
    if TYPE_CHECKING_INVALID_USAGE:
        # pyright also reports the unknown type of the missing member.
        return worker.draft_runners  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType]
    return None
