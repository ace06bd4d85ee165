"""Member behind a ``Callable[..., Any]`` decorator: a tracing decorator erases ``forward_batch_generation``'s signature.

``traced`` is typed ``(Callable[..., Any]) -> Callable[..., Any]``, the usual
annotation for a logging or timing decorator. To mypy and pyright the
decorated member accepts any arguments and returns ``Any``, so it matches any
protocol: their pass would be vacuous, hence ``unverified``. At runtime
``functools.wraps`` exposes the real signature, which is correct.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

logger = logging.getLogger(__name__)


def traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Log how long each call of ``fn`` takes."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            logger.debug("%s took %.3fs", fn.__qualname__, time.perf_counter() - start)

    return wrapper


# expect: member_callable_any_decorator.TracedWorker SpecWorker unverified runtime=pass mypy=unverified pyright=unverified
class TracedWorker(BaseSpecWorker):
    """Runs the target model alone, timing each step."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    @traced
    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        /,
        *,
        on_publish: Callable[..., object] | None = None,
    ) -> GenerationBatchResult:
        del on_publish
        return self.target_worker.forward_batch_generation(batch)
