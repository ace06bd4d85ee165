"""The registered factory returns the abstract base on its default path.

The factory picks a worker by the configured draft width, and for the default
(no width configured) returns the abstract ``TreeDrafterBase`` by mistake:
the scheduler's construction call (``create_worker(server_args)(...)``,
managers/scheduler.py ``maybe_init_draft_worker``) raises ``TypeError:
Can't instantiate abstract class``. The base is subclassed, but a factory
that returns it makes it a class sglang instantiates. The concrete worker it
returns otherwise is fine.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.managers.utils import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs


# expect: reg_factory_returns_base.TreeDrafterBase SpecWorker fail runtime=fail mypy=fail pyright=fail member=__init__
class TreeDrafterBase(BaseSpecWorker):
    """Runs the target model; subclasses choose the tree."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None

    @abstractmethod
    def tree_width(self) -> int: ...

    def forward_batch_generation(
        self, batch: ScheduleBatch, *, on_publish: Callable[..., Any] | None = None, pp_proxy_tensors: Any = None
    ) -> GenerationBatchResult:
        return self.target_worker.forward_batch_generation(batch)


# expect: reg_factory_returns_base.WideTreeWorker SpecWorker pass runtime=pass mypy=pass pyright=pass
class WideTreeWorker(TreeDrafterBase):
    """The wide tree, for a configured width above four."""

    def tree_width(self) -> int:
        return 8


@SpeculativeAlgorithm.register("SHAPE_REG_TREE", supports_overlap=True)
def _pick_worker(server_args: ServerArgs) -> type:
    width = getattr(server_args, "speculative_num_draft_tokens", None)
    chosen = WideTreeWorker if width is not None and width > 4 else TreeDrafterBase
    return chosen
