"""A family of n-gram workers made with ``type(...)`` from one written base.

``NGramWorkerBase`` is a class statement; ``NGram3Worker`` and ``NGram5Worker``
exist only once the module runs (``type(name, (NGramWorkerBase,), ns)``), so
no reading of the source lists them, and the static checkers never see them.
The runtime checker finds them at import, as module-level classes the module
defines. ``NGram5Worker``'s namespace swaps in a ``forward_batch_generation(self,
batch)`` that takes no ``on_publish=`` (scheduler.py:4704): ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: runtime_type_built_family.NGramWorkerBase SpecWorker any runtime=pass mypy=any pyright=any
class NGramWorkerBase(BaseSpecWorker):
    """Draft-free n-gram lookup; the width is a class attribute."""

    width = 2

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        on_publish: Callable[..., Any] | None = None,
        pp_proxy_tensors: Any = None,
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)


def _plain_step(self: Any, batch: Any) -> Any:
    return self.target_worker.forward_batch_generation(batch)


def _family(width: int, namespace: dict[str, Any]) -> type:
    return type(f"NGram{width}Worker", (NGramWorkerBase,), {"width": width, "__module__": __name__, **namespace})


# expect: runtime_type_built_family.NGram3Worker SpecWorker any runtime=pass runtime-decides
NGram3Worker = _family(3, {})
# expect: runtime_type_built_family.NGram5Worker SpecWorker fail runtime=fail member=forward_batch_generation runtime-decides
NGram5Worker = _family(5, {"forward_batch_generation": _plain_step})
