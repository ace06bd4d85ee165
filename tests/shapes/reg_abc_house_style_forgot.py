"""Registered, lists ``ABC`` out of house style, never writes the abstract ``draft_tokens``.

Every class in this plugin lists ``ABC`` among its bases. The worker the
registered factory returns still has its base's abstract ``draft_tokens``;
``Scheduler.maybe_init_draft_worker`` (managers/scheduler.py) does
``self.spec_algorithm.create_worker(server_args)(**draft_worker_kwargs)``, so
building it raises ``TypeError: Can't instantiate abstract class``. The
``ABC`` base is no excuse for a class the registration hands the scheduler;
the base nothing registers stays an intentional base.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_abc_house_style_forgot.LookaheadBase SpecWorker pass runtime=pass mypy=pass pyright=pass
# expect-note: abstract base: sglang does not instantiate it
class LookaheadBase(BaseSpecWorker, ABC):
    """Runs the target model; subclasses say which tokens to draft."""

    def __init__(self, target_worker: TpModelWorker) -> None:
        super().__init__()
        self._target_worker = target_worker
        self._draft_worker = None

    @abstractmethod
    def draft_tokens(self, batch: ScheduleBatch) -> list[list[int]]:
        """Draft token ids per request."""

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, on_publish: Callable[..., Any] | None = None, pp_proxy_tensors: Any = None
    ) -> GenerationBatchResult:
        self.draft_tokens(batch)
        return self.target_worker.forward_batch_generation(batch)


# expect: reg_abc_house_style_forgot.WindowLookaheadWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class WindowLookaheadWorker(LookaheadBase, ABC):
    """The worker sglang builds: it sets its window and forgot ``draft_tokens``."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker)
        self.window = 4


def register() -> None:
    """The plugin's entry point: registers the algorithm (imports sglang's registry lazily)."""
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register("SHAPE_REG_ABC", supports_overlap=True)
    def _factory(server_args: ServerArgs) -> type:
        return WindowLookaheadWorker
