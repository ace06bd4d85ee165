"""The worker class is made and registered inside a function the plugin calls.

``register()`` builds the worker class in its body (a closure over the
plugin's configuration) and registers a factory returning it. No class
statement is at module level, so a reading of the module finds no worker; the
plugin's loader calls ``register()`` and the scheduler builds the class it
returns (managers/scheduler.py ``maybe_init_draft_worker``). Its
``forward_batch_generation`` wants a ``temperature`` the scheduler never
passes: the first batch raises ``TypeError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs


# expect: replay_registered_in_factory_function.register.<locals>.ClosureWorker SpecWorker fail runtime=any replay=fail mypy=any pyright=any member=forward_batch_generation runtime-decides
def register() -> None:
    class ClosureWorker(BaseSpecWorker):
        def __init__(self, server_args: Any, gpu_id: int, nccl_port: int, target_worker: Any) -> None:
            super().__init__()
            self.server_args = server_args
            self._target_worker = target_worker
            self._draft_worker = None

        def forward_batch_generation(self, batch: Any, temperature: float, /, *, on_publish: Any = None) -> Any:
            return self.target_worker.forward_batch_generation(batch)

    def factory(server_args: ServerArgs) -> type:
        return ClosureWorker

    SpeculativeAlgorithm.register("SHAPE_REPLAY_CLOSURE", supports_overlap=True)(factory)
