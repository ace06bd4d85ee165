"""SpecWorkerBase subclass without ``__init__``: it inherits ``SpecWorkerBase.__init__(*, target_worker=, draft_worker=)``.

``SpecWorkerBase``'s own constructor takes only ``target_worker=`` and
``draft_worker=``; sglang also passes ``server_args=``, ``gpu_id=`` and
``nccl_port=``, so a subclass that writes only ``forward_batch_generation``
cannot be constructed by the scheduler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult


# expect: ctor_specworkerbase_no_init.NoInitBaseWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class NoInitBaseWorker(SpecWorkerBase):
    """Runs the target model alone; relies on SpecWorkerBase's constructor."""

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
