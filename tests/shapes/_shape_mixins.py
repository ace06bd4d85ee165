"""Helper for the star-import mixin shapes (not a target): mixins that supply forward_batch_generation.

``star_import_mixin`` and ``star_import_mixin_broken`` star-import this module
and put one of the mixins first among a worker's bases, so the member the
gate checks is defined here, in a module the target only reaches through
``import *``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult

__all__ = ["ForwardMixin", "StepCountForwardMixin"]


class ForwardMixin:
    """A forward step that runs the target model alone (no tokens drafted)."""

    _forward_target: TpModelWorker

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self._forward_target.forward_batch_generation(batch)


class StepCountForwardMixin:
    """Like ForwardMixin, but wants the number of draft steps as a second positional argument.

    The scheduler calls ``forward_batch_generation(batch)`` or
    ``forward_batch_generation(batch, on_publish=...)``: it never passes
    ``num_steps``, so this signature raises ``TypeError`` on the first batch.
    """

    _forward_target: TpModelWorker

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        num_steps: int,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish, num_steps
        return self._forward_target.forward_batch_generation(batch)
