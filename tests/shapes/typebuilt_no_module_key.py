"""Workers made with ``type(...)`` whose namespace sets no ``__module__``.

``type("SkipGramWorker", (BaseSpecWorker,), ns)``: ``BaseSpecWorker``'s
metaclass is ``ABCMeta``, so ``type`` hands the call to ``ABCMeta.__new__``
(abc.py), and the class's ``__module__`` is read from that frame: ``abc``.
The class is still this module's (``abc`` does not hold it); the runtime
checker's scan counts it as made here (``_runtime_scan._made_here``).
``SkipGramLiteWorker``'s ``forward_batch_generation(self, batch)`` takes no
``on_publish=``, which the scheduler's overlap branch passes (scheduler.py:
run_batch): ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker


def _start(self: Any, server_args: Any, gpu_id: int, nccl_port: int, target_worker: Any) -> None:
    BaseSpecWorker.__init__(self)
    self._target_worker = target_worker
    self._draft_worker = None


def _skip_step(self: Any, batch: Any, *, on_publish: Any = None, pp_proxy_tensors: Any = None) -> Any:
    return self._target_worker.forward_batch_generation(batch)


def _lite_step(self: Any, batch: Any) -> Any:
    return self._target_worker.forward_batch_generation(batch)


# expect: typebuilt_no_module_key.SkipGramWorker SpecWorker unverified runtime=pass mypy=unverified pyright=unverified runtime-decides
SkipGramWorker = type("SkipGramWorker", (BaseSpecWorker,), {"__init__": _start, "forward_batch_generation": _skip_step})
# expect: typebuilt_no_module_key.SkipGramLiteWorker SpecWorker fail runtime=fail mypy=unverified pyright=unverified member=forward_batch_generation runtime-decides
SkipGramLiteWorker = type("SkipGramLiteWorker", (BaseSpecWorker,), {"__init__": _start, "forward_batch_generation": _lite_step})
