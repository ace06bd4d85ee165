"""SpecWorkerBase: its defaults, and the error for a target worker that was never set."""

from __future__ import annotations

from typing import Any

import pytest

from spec_protocols import SpecWorker, SpecWorkerBase, WorkerNotInitializedError
from tests.stand_ins import RecordingDraft as Recorder


class Worker(SpecWorkerBase):
    def forward_batch_generation(self, batch: Any, /, *, on_publish: Any = None) -> Any:
        return ("step", batch)


class Target:
    class model_runner:  # noqa: N801 - stands in for an attribute
        @staticmethod
        def prewarm_sampling() -> str:
            return "prewarmed"


def test_forward_batch_generation_is_the_one_abstract_member() -> None:
    class Nothing(SpecWorkerBase):
        pass

    with pytest.raises(TypeError, match="forward_batch_generation"):
        Nothing()  # type: ignore[abstract]


def test_workers_are_properties_over_the_constructor_arguments() -> None:
    target, draft = Target(), Recorder()
    worker = Worker(target_worker=target, draft_worker=draft)  # type: ignore[arg-type]
    assert worker.target_worker is target
    assert worker.draft_worker is draft
    assert Worker(target_worker=target).draft_worker is None  # type: ignore[arg-type]
    assert isinstance(worker, SpecWorker)


def test_lifecycle_delegates_to_the_draft_worker() -> None:
    draft = Recorder()
    worker = Worker(target_worker=Target(), draft_worker=draft)  # type: ignore[arg-type]
    worker.alloc_memory_pool("cfg", "r2t", "alloc")  # type: ignore[arg-type]
    worker.init_attention_backends()
    worker.init_cuda_graphs()
    worker.clear_cache_pool()
    assert draft.calls == [
        ("alloc_memory_pool", (), {"memory_pool_config": "cfg", "req_to_token_pool": "r2t",
                                   "token_to_kv_pool_allocator": "alloc"}),
        ("init_attention_backends", (), {}),
        ("init_cuda_graphs", (), {}),
    ]
    assert worker.req_to_token_pool == "r2t"
    assert worker.token_to_kv_pool_allocator == "alloc"


def test_without_a_draft_the_lifecycle_keeps_the_pools_and_does_nothing_else() -> None:
    worker = Worker(target_worker=Target())  # type: ignore[arg-type]
    worker.alloc_memory_pool(req_to_token_pool="r2t")  # type: ignore[arg-type]
    worker.init_attention_backends()
    worker.init_cuda_graphs()
    assert worker.req_to_token_pool == "r2t"
    assert worker.token_to_kv_pool_allocator is None


def test_read_only_defaults_follow_the_draft_worker() -> None:
    draft = Recorder()
    worker = Worker(target_worker=Target(), draft_worker=draft)  # type: ignore[arg-type]
    assert worker.graph_memory_usage == {"decode": 1.5}
    assert worker.graph_time_usage == {"decode": 0.25}
    assert worker.weight_load_time == 3.0
    assert worker.preloaded_weights_bytes == 42
    assert worker.weight_update_runners() == [("draft", "runner-a"), ("draft", "runner-b")]

    bare = Worker(target_worker=Target())  # type: ignore[arg-type]
    assert bare.graph_memory_usage == {}
    assert bare.graph_time_usage == {}
    assert bare.weight_load_time == 0.0
    assert bare.preloaded_weights_bytes == 0
    assert bare.weight_update_runners() == []


def test_neutral_defaults() -> None:
    worker = Worker(target_worker=Target())  # type: ignore[arg-type]
    assert worker.draft_swa_window == 0
    assert worker.primary_draft_kv_pool is None
    assert worker.draft_parallel_layout is None
    assert worker.init_hicache_draft_plan() is None
    assert worker.note_request_finished(rid="r", natural_stop=True) is None
    assert worker.last_shared_read_runner is Target.model_runner
    assert worker.prewarm_sampling() == "prewarmed"


def test_a_tp_model_worker_draft_contributes_its_model_runner() -> None:
    class TpDraft(Recorder):
        model_runner = "tp-runner"  # type: ignore[assignment]  # a TpModelWorker has a runner, no draft_runners

        def __init__(self) -> None:
            super().__init__()
            del self.draft_runners

    worker = Worker(target_worker=Target(), draft_worker=TpDraft())  # type: ignore[arg-type]
    assert worker.weight_update_runners() == [("draft", "tp-runner")]


def test_unset_target_worker_names_the_class_and_the_fix() -> None:
    class Forgetful(Worker):
        def __init__(self) -> None:
            pass  # never calls super().__init__(target_worker=...)

    with pytest.raises(WorkerNotInitializedError) as info:
        Forgetful().target_worker
    message = str(info.value)
    assert "Forgetful.target_worker" in message
    assert "target_worker=" in message
    assert "self._target_worker" in message
    # Not an AttributeError: that would send Python to __getattr__.
    assert not isinstance(info.value, AttributeError)


def test_unset_target_worker_with_a_delegating_getattr_does_not_recurse() -> None:
    # Like DFlash/DSpark/Uno: unknown attributes go to the target worker.
    class Delegating(Worker):
        def __init__(self) -> None:
            pass

        def __getattr__(self, name: str) -> Any:
            return getattr(self.target_worker, name)

    worker = Delegating()
    with pytest.raises(WorkerNotInitializedError, match="Delegating.target_worker"):
        worker.target_worker
    with pytest.raises(WorkerNotInitializedError, match="Delegating.target_worker"):
        worker.some_target_attribute  # noqa: B018
    # The properties that read the target report the same, not a RecursionError.
    with pytest.raises(WorkerNotInitializedError):
        worker.last_shared_read_runner


def test_setting_the_field_directly_works_too() -> None:
    class SglangStyle(Worker):
        def __init__(self, target: Any) -> None:
            super().__init__()
            self._target_worker = target

    target = Target()
    assert SglangStyle(target).target_worker is target
