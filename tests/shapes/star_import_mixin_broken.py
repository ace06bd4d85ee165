"""Star-imported mixin, broken: the star-imported mixin's forward_batch_generation needs an extra argument.

The incompatible member is defined in the helper module, not in the target.
A gate that cannot follow the star import either misses the problem (the
mixin is ``Any``) or blames the wrong place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from _shape_mixins import *  # noqa: F403
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.server_args import ServerArgs


# expect: star_import_mixin_broken.StarMixinBrokenWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=forward_batch_generation
class StarMixinBrokenWorker(StepCountForwardMixin, BaseSpecWorker):  # noqa: F405
    """BaseSpecWorker's lifecycle plus a forward step the scheduler cannot call."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._forward_target = target_worker
        self._draft_worker = None
