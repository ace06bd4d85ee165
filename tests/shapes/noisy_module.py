"""Noisy module: prints at import and at exit, writes to stderr, and starts a non-daemon thread that sleeps for an hour.

Plugin modules log banners, register ``atexit`` hooks and start background
threads (a metrics reporter, a prefetcher) at import. The runtime probe
imports the module: it must not mistake the prints for its own output, and
must not wait for the thread (a probe that exits normally would hang until
its timeout). The worker itself is correct.
"""

from __future__ import annotations

import atexit
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

print("noisy_module: loading the SHAPE_NOISY plugin")
print('{"results": "not the probe\'s output"}')
sys.stderr.write("noisy_module: warning: metrics endpoint not configured\n")
atexit.register(print, "noisy_module: goodbye from atexit")

_metrics_reporter = threading.Thread(target=time.sleep, args=(3600,), name="noisy-metrics-reporter")
_metrics_reporter.start()


# expect: noisy_module.NoisyWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class NoisyWorker(BaseSpecWorker):
    """Runs the target model alone."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
