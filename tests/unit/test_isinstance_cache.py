"""The per-class cache behind isinstance(obj, SpecWorker): what it keys on and when it resets.

The semantics are documented in spec_protocols/_isinstance_cache.py; each test
below pins one sentence of that documentation.
"""

from __future__ import annotations

from typing import Any

import pytest
import typing_extensions

from spec_protocols import DraftWorker, SpecWorker, SpecWorkerBase
from tests.stand_ins import StandInDraft
from spec_protocols._isinstance_cache import _CACHES, MAX_ENTRIES, clear_isinstance_cache


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    clear_isinstance_cache()
    yield
    clear_isinstance_cache()


class _Worker(SpecWorkerBase):
    def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None) -> Any:
        return None


def _draft_class() -> type:
    """A new conforming draft class on every call (the cache is per class),
    with every member in its own namespace (the tests delete some)."""
    namespace = {k: v for k, v in vars(StandInDraft).items() if k not in ("__dict__", "__weakref__")}
    return type("Draft", (), namespace)


def test_hit_is_cached_per_class() -> None:
    worker = _Worker(target_worker=object())  # type: ignore[arg-type]
    assert isinstance(worker, SpecWorker)
    assert _CACHES[SpecWorker][_Worker] is True


def test_miss_on_a_method_is_cached_as_false() -> None:
    class NoForward:
        pass

    assert not isinstance(NoForward(), SpecWorker)
    assert _CACHES[SpecWorker][NoForward] is False


def test_getattr_never_counts_as_a_member() -> None:
    class Delegating:
        def __getattr__(self, name: str) -> Any:
            return lambda *a, **k: None

    assert not isinstance(Delegating(), DraftWorker)


def test_instance_shadowing_is_not_consulted_for_a_cached_class() -> None:
    # Documented: the cache answers for the class.
    worker = _Worker(target_worker=object())  # type: ignore[arg-type]
    assert isinstance(worker, SpecWorker)
    worker.clear_cache_pool = None  # type: ignore[method-assign,assignment]
    assert isinstance(worker, SpecWorker)


def test_data_member_only_on_instances_is_answered_exactly_and_not_cached() -> None:
    draft_cls = _draft_class()
    del draft_cls.weight_load_time  # now only instances may have it

    with_attr = draft_cls()
    with_attr.weight_load_time = 1.0
    without = draft_cls()
    assert isinstance(with_attr, DraftWorker)
    assert not isinstance(without, DraftWorker)
    assert draft_cls not in _CACHES[DraftWorker]


def test_clear_isinstance_cache_sees_a_patched_class() -> None:
    draft_cls = _draft_class()
    assert isinstance(draft_cls(), DraftWorker)
    del draft_cls.init_cuda_graphs
    assert isinstance(draft_cls(), DraftWorker)  # cached: documented staleness
    clear_isinstance_cache()
    assert not isinstance(draft_cls(), DraftWorker)


def test_cache_is_bounded() -> None:
    for i in range(MAX_ENTRIES + 5):
        cls = type(f"C{i}", (), {})
        isinstance(cls(), SpecWorker)
    assert len(_CACHES[SpecWorker]) <= MAX_ENTRIES


def test_answers_match_the_uncached_structural_check() -> None:
    # Classes whose members all live on the class: cached and uncached agree.
    draft_cls = _draft_class()
    uncached = typing_extensions.runtime_checkable(
        type("D", (typing_extensions.Protocol,), dict(DraftWorker.__dict__))
    )
    for obj in (draft_cls(), object(), _Worker(target_worker=object())):  # type: ignore[arg-type]
        assert isinstance(obj, DraftWorker) == isinstance(obj, uncached)
