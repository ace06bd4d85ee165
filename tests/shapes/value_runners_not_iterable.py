"""What sglang does with a member's value: ``weight_update_runners()`` returns None, ``preloaded_weights_bytes`` a string.

0.5.23 adds what the spec worker gives to its own (issue 31, item 1; the
contract's ``value_uses``, `spec-protocols explain SpecWorker`):
``runners += self.draft_worker.weight_update_runners()``
(scheduler_components/weight_updater.py:184) iterates the value, and
``Scheduler.init_target_memory_pool`` adds ``preloaded_weights_bytes`` to a
byte count with ``+=`` (scheduler.py:1088). None is not iterable and a string
does not add to an int: each is a ``TypeError`` on the path that uses it. The
protocol types both (``Iterable[tuple[str, ModelRunner]]``, ``int``), so both
static checkers fail them; the runtime checker sees the class as the import
leaves it, whose values no call has made yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.server_args import ServerArgs


# expect: value_runners_not_iterable.UnusableValuesWorker SpecWorker fail runtime=pass mypy=fail pyright=fail member=weight_update_runners
class UnusableValuesWorker(BaseSpecWorker):
    """Its draft is its target; it reports no runners and its byte count as text."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = target_worker

    def weight_update_runners(self) -> None:
        return None

    @property
    def preloaded_weights_bytes(self) -> str:
        return "0"

    def _draft_model_runners(self) -> tuple[ModelRunner, ...]:
        return (self.target_worker.model_runner,)

    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        result = self.target_worker.forward_batch_generation(batch)
        return result
