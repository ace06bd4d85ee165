"""Lookup workers stamped out with ``type(...)``: the module has no class statement at all.

``TRIGRAM_WORKER`` and ``FOURGRAM_WORKER`` are ``type(name, (BaseSpecWorker,), ns)``
calls at module level, one per table width, sharing the functions below. No
reading of the source lists a worker (discovery sees no ``class`` statement),
so discovery asks the runtime checker, which imports the module, for the
worker classes it made (``_checkers/_runtime_scan.classes_at_import``); the
static checkers cannot see such a class and say ``unverified``, never pass.
With ``--no-import`` the run is refused in one line that says the module
builds its classes at run time. ``FOURGRAM_WORKER``'s
``forward_batch_generation(self, batch)`` takes no ``on_publish=``, which the
scheduler's overlap branch passes (scheduler.py: run_batch): ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


def _init(self: Any, server_args: Any, gpu_id: int, nccl_port: int, target_worker: Any) -> None:
    BaseSpecWorker.__init__(self)
    self._target_worker = target_worker
    self._draft_worker = None


def _step(self: Any, batch: Any, *, on_publish: Any = None, pp_proxy_tensors: Any = None) -> Any:
    return self._target_worker.forward_batch_generation(batch)


def _plain_step(self: Any, batch: Any) -> Any:
    return self._target_worker.forward_batch_generation(batch)


# expect: typebuilt_only_lookup_table.TRIGRAM_WORKER SpecWorker unverified runtime=pass mypy=unverified pyright=unverified runtime-decides
TRIGRAM_WORKER = type(
    "TrigramWorker", (BaseSpecWorker,), {"__init__": _init, "forward_batch_generation": _step, "__module__": __name__}
)
# expect: typebuilt_only_lookup_table.FOURGRAM_WORKER SpecWorker fail runtime=fail mypy=unverified pyright=unverified member=forward_batch_generation runtime-decides
FOURGRAM_WORKER = type(
    "FourgramWorker",
    (BaseSpecWorker,),
    {"__init__": _init, "forward_batch_generation": _plain_step, "__module__": __name__},
)
