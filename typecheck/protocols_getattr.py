"""A class's ``__getattr__`` and the protocols: the two checkers disagree.

sglang fact: ``DFlashWorkerV2``, ``DSparkWorkerV2`` and ``UnoWorkerV2`` define
``__getattr__`` (delegating to the target worker). Measured with mypy 2.4.1
and pyright 1.1.414: mypy lets ``__getattr__`` supply any missing protocol
member, so such a class "conforms" to anything; pyright does not. This case
pins both behaviours: the assignment below errors under pyright only. That is
why the gate does not trust mypy alone for these classes, and why
``verify_conformance`` ignores ``__getattr__`` at runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from spec_protocols import DraftWorker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class Delegating:
    # No init_cuda_graphs: only __getattr__ would answer for it.
    def alloc_memory_pool(self, **kwargs: object) -> None: ...
    def init_attention_backends(self) -> None: ...

    @property
    def graph_memory_usage(self) -> Mapping[str, float]:
        return {}
    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        return {}
    @property
    def weight_load_time(self) -> float:
        return 0.0
    @property
    def preloaded_weights_bytes(self) -> int:
        return 0

    def __getattr__(self, name: str) -> Any: ...


def check(worker: Delegating) -> None:
    if TYPE_CHECKING_INVALID_USAGE:
        # mypy accepts it (so no mypy ignore: warn_unused_ignores would flag
        # one); pyright rejects it.
        bad: DraftWorker = worker  # pyright: ignore[reportAssignmentType]
        del bad
