"""SpecWorkerBase behaves exactly like sglang 0.5.23's BaseSpecWorker lifecycle defaults.

Both are driven with the same recording fake draft workers (with a draft, and
with ``draft_worker`` None) through the four lifecycle calls, with
``alloc_memory_pool`` called positionally, by keyword and with defaults. The
recorded calls on the draft and the pools kept on the worker must be equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from spec_protocols import SpecWorkerBase
from tests.stand_ins import RecordingDraft
from tests._sglang import sglang_class

pytestmark = pytest.mark.sglang_runtime


class OursWorker(SpecWorkerBase):
    def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None) -> Any:
        raise NotImplementedError


def make_theirs(target: object, draft: RecordingDraft | None) -> Any:
    base = sglang_class("sglang.srt.speculative.base_spec_worker", "BaseSpecWorker")

    class TheirsWorker(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self._target_worker = target
            self._draft_worker = draft

        def forward_batch_generation(self, batch: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    return TheirsWorker()


def make_ours(target: object, draft: RecordingDraft | None) -> Any:
    return OursWorker(target_worker=target, draft_worker=draft)  # type: ignore[arg-type]


Drive = Callable[[Any], None]

CFG, R2T, ALLOC = object(), object(), object()

SCENARIOS: dict[str, Drive] = {
    "positional": lambda w: w.alloc_memory_pool(CFG, R2T, ALLOC),
    "keywords": lambda w: w.alloc_memory_pool(
        memory_pool_config=CFG, req_to_token_pool=R2T, token_to_kv_pool_allocator=ALLOC
    ),
    "mixed": lambda w: w.alloc_memory_pool(CFG, token_to_kv_pool_allocator=ALLOC),
    "defaults": lambda w: w.alloc_memory_pool(),
}


def run_lifecycle(worker: Any, alloc: Drive) -> None:
    alloc(worker)
    worker.init_attention_backends()
    worker.init_cuda_graphs()
    assert worker.clear_cache_pool() is None


def observe(worker: Any, draft: RecordingDraft | None) -> dict[str, Any]:
    return {
        "draft_calls": None if draft is None else draft.calls,
        "req_to_token_pool": worker.req_to_token_pool,
        "token_to_kv_pool_allocator": worker.token_to_kv_pool_allocator,
        "draft_worker_is_draft": worker.draft_worker is draft,
    }


@pytest.mark.parametrize("with_draft", [True, False], ids=["draft", "no-draft"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_lifecycle_matches_base_spec_worker(scenario: str, with_draft: bool) -> None:
    target = object()
    results = []
    for make in (make_theirs, make_ours):
        draft = RecordingDraft() if with_draft else None
        worker = make(target, draft)
        run_lifecycle(worker, SCENARIOS[scenario])
        assert worker.target_worker is target
        results.append(observe(worker, draft))
    theirs, ours = results
    assert ours == theirs
    if with_draft:
        # Not vacuous: the draft really was driven, all three pools by keyword.
        names = [name for name, _, _ in theirs["draft_calls"]]
        assert names == ["alloc_memory_pool", "init_attention_backends", "init_cuda_graphs"]
        assert theirs["draft_calls"][0][1] == ()
        assert set(theirs["draft_calls"][0][2]) == {
            "memory_pool_config", "req_to_token_pool", "token_to_kv_pool_allocator",
        }


def test_read_only_defaults_match_without_a_draft() -> None:
    theirs, ours = make_theirs(object(), None), make_ours(object(), None)
    for name in ("weight_load_time", "preloaded_weights_bytes", "draft_swa_window", "draft_parallel_layout"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.weight_update_runners() == theirs.weight_update_runners() == []
    assert ours.note_request_finished(rid="r", natural_stop=False) is None
    assert theirs.note_request_finished(rid="r", natural_stop=False) is None
