"""A registry metaclass that conflicts with ``BaseSpecWorker``'s ``ABCMeta``.

``class SelfRegisteringWorker(BaseSpecWorker, metaclass=WorkerRegistryMeta)``
where ``WorkerRegistryMeta`` derives from ``type``, not ``ABCMeta``: the
class statement raises ``TypeError: metaclass conflict`` when the module is
imported, so the class never exists and no factory can hand it to the
scheduler (scheduler.py:1063). That is the module's own code failing, not a
missing dependency: the runtime checker fails the class, in one line.
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

WORKERS: dict[str, type] = {}


class WorkerRegistryMeta(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        cls = super().__new__(mcs, name, bases, namespace)
        WORKERS[name] = cls
        return cls


# expect: runtime_import_metaclass_conflict.SelfRegisteringWorker SpecWorker fail runtime=fail mypy=any pyright=any runtime-decides
class SelfRegisteringWorker(BaseSpecWorker, metaclass=WorkerRegistryMeta):
    """Registers itself by name when defined."""

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
