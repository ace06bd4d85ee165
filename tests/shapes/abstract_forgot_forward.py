"""Abstract by mistake: a SpecWorkerBase subclass with a constructor but no ``forward_batch_generation``.

``forward_batch_generation`` is abstract in ``SpecWorkerBase`` at run time, so
the member "exists" on the class and a member-by-member check there finds
nothing wrong; but the class cannot be instantiated, and sglang instantiates
it: the runtime checker fails it on ``__init__``, naming the abstract member.
To mypy and pyright ``SpecWorkerBase`` does not declare the member (see
spec_protocols/_base.py), so they fail it as missing, with the signature
sglang calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spec_protocols import SpecWorkerBase

if TYPE_CHECKING:
    from sglang.srt.managers.tp_worker import TpModelWorker
    from sglang.srt.server_args import ServerArgs


# expect: abstract_forgot_forward.ForgotForwardWorker SpecWorker fail runtime=fail mypy=fail pyright=fail
class ForgotForwardWorker(SpecWorkerBase):
    """Sets up its target worker; the forward step was never written."""

    def __init__(self, server_args: ServerArgs, gpu_id: int, nccl_port: int, target_worker: TpModelWorker) -> None:
        super().__init__(target_worker=target_worker)
        self.server_args = server_args
