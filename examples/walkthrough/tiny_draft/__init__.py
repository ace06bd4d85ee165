"""``TINY_DRAFT``: the in-house algorithm of docs/authoring.md's worked example.

:func:`register` adds it to sglang's ``SpeculativeAlgorithm``, with the
algorithm object the scheduler calls (:mod:`tiny_draft.algorithm`: sglang's
default ``CustomSpecAlgo`` lacks members the scheduler calls at start-up);
sglang's plugin loader calls it (or a test does), never an import. The worker
(:mod:`tiny_draft.worker`) subclasses sglang's ``BaseSpecWorker`` and builds
its draft model with ``build_draft_tp_worker(draft_worker_cls=TinyDraftWorker)``
(:mod:`tiny_draft.draft`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs

__all__ = ["ALGORITHM_NAME", "register"]

#: The name users pass as ``--speculative-algorithm``.
ALGORITHM_NAME: Final = "TINY_DRAFT"

_registered = False


def register() -> None:
    """Register ``TINY_DRAFT`` with sglang. Idempotent (sglang raises on a second registration)."""
    global _registered
    if _registered:
        return
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    from tiny_draft.algorithm import TinyDraftAlgorithm

    @SpeculativeAlgorithm.register(ALGORITHM_NAME, supports_overlap=True, spec_class=TinyDraftAlgorithm)
    def _factory(server_args: ServerArgs) -> type:
        from tiny_draft.worker import TinyDraftSpecWorker  # imports torch: only when sglang asks

        return TinyDraftSpecWorker

    _registered = True
