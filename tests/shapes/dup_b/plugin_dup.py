"""Same module name, second copy: ``dup_b/plugin_dup.py`` holds a worker without ``forward_batch_generation``.

The twin of ``dup_a/plugin_dup.py``. Its worker must fail on its own
missing member, whichever of the two files a shared import cache or module
map would have picked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.server_args import ServerArgs


# expect: plugin_dup.BadDupWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=forward_batch_generation
class BadDupWorker(BaseSpecWorker):
    """Constructs correctly; the forward step is missing."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
