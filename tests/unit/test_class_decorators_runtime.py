"""``spec_worker_class`` / ``draft_worker_class`` at run time: the identity, and nothing else.

The check they stand for is static (typecheck/protocols_*_class.py;
tests/checkers/test_class_decorators_checkers.py). At run time a decorated
class must be the class as written: the same object, its namespace untouched,
still abstract if it was, and never looked at (a plugin module is imported on
sglang's start-up path, and a non-conforming class is the gate's and
``verify_conformance``'s business, not an import error).
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import pytest

import spec_protocols
from spec_protocols import draft_worker_class, spec_worker_class

T = TypeVar("T")

DECORATORS: list[Callable[[Any], Any]] = [spec_worker_class, draft_worker_class]


@pytest.mark.parametrize("decorator", DECORATORS, ids=lambda d: d.__name__)
def test_returns_the_class_itself_with_its_namespace_untouched(decorator: Callable[[Any], Any]) -> None:
    class Worker:
        def forward_batch_generation(self) -> None: ...

    before = dict(vars(Worker))
    assert decorator(Worker) is Worker
    assert dict(vars(Worker)) == before


@pytest.mark.parametrize("decorator", DECORATORS, ids=lambda d: d.__name__)
def test_never_looks_at_the_class(decorator: Callable[[Any], Any]) -> None:
    # A metaclass that records every attribute read on the class object: the
    # decorator reads none (no isinstance, no inspection, no __init__ lookup).
    reads: list[str] = []

    class Recording(type):
        def __getattribute__(cls, name: str) -> Any:
            reads.append(name)
            return super().__getattribute__(name)

    class Worker(metaclass=Recording):
        pass

    reads.clear()
    decorator(Worker)
    assert reads == []


@pytest.mark.parametrize("decorator", DECORATORS, ids=lambda d: d.__name__)
def test_abstract_generic_and_metaclass_classes_stay_as_written(decorator: Callable[[Any], Any]) -> None:
    class Kind(abc.ABCMeta):
        pass

    @decorator
    class Abstract(Generic[T], metaclass=Kind):
        @abc.abstractmethod
        def draft(self) -> T: ...

    assert type(Abstract) is Kind
    assert Abstract[int].__origin__ is Abstract  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="abstract"):
        Abstract()  # type: ignore[abstract]  # the point: it stays abstract


@pytest.mark.parametrize("decorator", DECORATORS, ids=lambda d: d.__name__)
def test_a_class_that_does_not_conform_is_no_import_error(decorator: Callable[[Any], Any]) -> None:
    # Conformance at run time is verify_conformance's and the gate's.
    class NotAWorker:
        pass

    assert decorator(NotAWorker) is NotAWorker


def test_exported_from_the_package() -> None:
    assert {"spec_worker_class", "draft_worker_class"} <= set(spec_protocols.__all__)
    assert spec_protocols.spec_worker_class.__module__ == "spec_protocols._class_decorators"
