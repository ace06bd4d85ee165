"""A property is not a method, and a method is not a property.

sglang facts: the scheduler *reads* ``worker.weight_load_time``
(scheduler.py:749) and ``BaseSpecWorker`` reads
``draft_worker.graph_memory_usage`` (base_spec_worker.py:217), while it
*calls* ``draft_worker.init_attention_backends()`` (base_spec_worker.py:373).
A method where a value is read, or a property where a call is made, breaks at
runtime; both checkers must reject it. A plain attribute satisfies a
read-only protocol property (the scheduler only reads it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from spec_protocols import DraftWorker

TYPE_CHECKING_INVALID_USAGE: Final = TYPE_CHECKING


class _Common:
    def alloc_memory_pool(self, **kwargs: object) -> None: ...
    def init_cuda_graphs(self) -> None: ...

    @property
    def graph_time_usage(self) -> Mapping[str, float]:
        return {}
    @property
    def preloaded_weights_bytes(self) -> int:
        return 0


class Attributes(_Common):
    # Plain attributes for read-only protocol properties: accepted.
    graph_memory_usage: dict[str, float] = {}
    weight_load_time: float = 0.0

    def init_attention_backends(self) -> None: ...


class MethodForProperty(_Common):
    graph_memory_usage: dict[str, float] = {}

    def weight_load_time(self) -> float:
        return 0.0
    def init_attention_backends(self) -> None: ...


class PropertyForMethod(_Common):
    graph_memory_usage: dict[str, float] = {}
    weight_load_time: float = 0.0

    @property
    def init_attention_backends(self) -> None: ...


def check(attrs: Attributes, method: MethodForProperty, prop: PropertyForMethod) -> None:
    ok: DraftWorker = attrs
    del ok
    if TYPE_CHECKING_INVALID_USAGE:
        bad_method: DraftWorker = method  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        bad_property: DraftWorker = prop  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
        del bad_method, bad_property
