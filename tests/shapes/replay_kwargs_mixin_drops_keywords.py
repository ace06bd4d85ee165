"""A cooperative ``**kwargs`` mixin swallows the scheduler's keywords before ``BaseSpecWorker``.

The worker's constructor is ``__init__(self, **kwargs)``, which takes any
call, so its signature reads as conforming. The mixin's ``__init__`` keeps
``server_args`` and ``target_worker`` and passes the rest to the next class,
``BaseSpecWorker``, whose ``__init__(self)`` takes nothing: the scheduler's
construction (managers/scheduler.py ``maybe_init_draft_worker``) raises
``TypeError: ... got an unexpected keyword argument 'gpu_id'``. The sibling's
mixin consumes every keyword it is given and works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.eagle_info import EagleDraftInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


class _LeakyConfigMixin:
    def __init__(self, **kwargs: Any) -> None:
        self.server_args = kwargs.pop("server_args")
        self._target_worker = kwargs.pop("target_worker")
        super().__init__(**kwargs)


class _TidyConfigMixin:
    def __init__(self, **kwargs: Any) -> None:
        self.server_args = kwargs.pop("server_args")
        self._target_worker = kwargs.pop("target_worker")
        self.gpu_id = kwargs.pop("gpu_id")
        self.nccl_port = kwargs.pop("nccl_port")
        super().__init__(**kwargs)


class _Forward:
    _target_worker: Any

    def forward_batch_generation(
        self, batch: ScheduleBatch, /, *, on_publish: Callable[..., object] | None = None
    ) -> GenerationBatchResult:
        del on_publish
        result = self._target_worker.forward_batch_generation(batch)
        result.next_draft_input = EagleDraftInput()  # run_batch reads it on the overlap loop
        return result


# expect: replay_kwargs_mixin_drops_keywords.LeakyWorker SpecWorker fail runtime=pass replay=fail mypy=pass pyright=pass member=__init__ runtime-decides
class LeakyWorker(_LeakyConfigMixin, _Forward, BaseSpecWorker):
    """Hands gpu_id and nccl_port on to BaseSpecWorker.__init__, which takes none."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._draft_worker = None


# expect: replay_kwargs_mixin_drops_keywords.TidyWorker SpecWorker pass runtime=pass replay=pass mypy=pass pyright=pass
class TidyWorker(_TidyConfigMixin, _Forward, BaseSpecWorker):
    """Consumes every keyword before BaseSpecWorker."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._draft_worker = None


@SpeculativeAlgorithm.register("SHAPE_REPLAY_LEAKY", supports_overlap=True)
def _leaky(server_args: ServerArgs) -> type:
    return LeakyWorker


@SpeculativeAlgorithm.register("SHAPE_REPLAY_TIDY", supports_overlap=True)
def _tidy(server_args: ServerArgs) -> type:
    return TidyWorker
