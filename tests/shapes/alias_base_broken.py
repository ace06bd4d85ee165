"""Alias base, broken: an aliased BaseSpecWorker subclass that lacks forward_batch_generation.

The same alias as ``alias_base``, but the worker forgot the one member that
BaseSpecWorker does not provide. If discovery cannot see through the alias the
worker is never checked, and the gate passes a worker that raises
``AttributeError`` on the first batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

if TYPE_CHECKING:
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.server_args import ServerArgs

Base = BaseSpecWorker


# expect: alias_base_broken.AliasBrokenWorker SpecWorker fail runtime=fail mypy=fail pyright=fail member=forward_batch_generation
class AliasBrokenWorker(Base):
    """Constructs correctly, but never implements forward_batch_generation."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__()
        self.server_args = server_args
        self._target_worker = target_worker
        self._draft_worker = None
