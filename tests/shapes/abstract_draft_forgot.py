"""Abstract draft worker by mistake: an EagleDraftWorkerBase subclass implements ``draft`` but not ``draft_extend``.

``EagleDraftWorkerBase`` supplies every ``DraftWorker`` member, so a
member-by-member check passes; but ``draft_extend`` is still abstract, the
class cannot be instantiated, and nothing subclasses it. The gate fails it on
``__init__``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import EagleDraftWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch


# expect: abstract_draft_forgot.ForgotExtendDraft DraftWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class ForgotExtendDraft(EagleDraftWorkerBase):
    """Drafts, but never extends the draft KV cache after verification."""

    def draft(self, batch: ScheduleBatch) -> None:
        del batch
