"""A registry metaclass that conflicts with ``ABCMeta``: the class statement itself fails.

``BaseSpecWorker`` is an ``ABC`` (speculative/base_spec_worker.py:155), so its
metaclass is ``ABCMeta``; a worker declared with ``metaclass=WorkerRegistry``
(a plain ``type`` subclass) raises ``TypeError: metaclass conflict`` when the
module runs its ``class`` statement, and sglang never gets a class to register
or build. mypy ("Metaclass conflict") and pyright ("The metaclass of a derived
class must be a subclass of the metaclasses of all its base classes") both say
so at the ``class`` line, which fails the class for each of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


class WorkerRegistry(type):
    """Records every worker class by name as it is defined."""

    workers: ClassVar[dict[str, type]] = {}

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> WorkerRegistry:
        cls = super().__new__(mcs, name, bases, namespace)
        mcs.workers[name] = cls
        return cls


# expect: diag_metaclass_conflict.RecordedWorker SpecWorker fail runtime=fail mypy=fail pyright=fail
class RecordedWorker(BaseSpecWorker, metaclass=WorkerRegistry):
    """Runs the target model alone, recorded in the registry."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
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
