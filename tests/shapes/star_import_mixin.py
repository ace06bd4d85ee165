"""Star-imported mixin: forward_batch_generation comes from a mixin bound by ``import *``.

The worker's only hand-written member lives in a helper module
(``_shape_mixins``) that the plugin star-imports. The static checkers must read
that module from source (not treat it as an unknown import) or they either see
``Any`` or report a missing member that is really there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from _shape_mixins import *  # noqa: F403
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.server_args import ServerArgs


# expect: star_import_mixin.StarMixinWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class StarMixinWorker(ForwardMixin, BaseSpecWorker):  # noqa: F405
    """BaseSpecWorker's lifecycle plus the mixin's forward step."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._forward_target = target_worker
        self._draft_worker = None
