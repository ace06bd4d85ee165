"""sglang 0.5.23 with the integration series applied: what the patches change, on CPU.

The series is ``integrations/sglang/0.5.23/``. These tests run only inside an
interpreter whose ``sglang`` is a patched copy: ``tests/slow/test_integration_sglang.py``
builds one (the installed sglang mirrored, the series applied with
``patch -p1``), puts it first on ``PYTHONPATH``, names it in
``SPEC_PROTOCOLS_PATCHED_SGLANG`` and requires every test here to pass (and
the behaviour tests to fail against the unpatched copy). In an ordinary run
the module is skipped, saying so.

Each test names the patch whose behaviour it pins. Tensors, batches and
requests are fakes: nothing here needs a GPU or a model.
"""

from __future__ import annotations

import dataclasses
import os
import typing
import uuid
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, Optional

import pytest

from spec_protocols import (
    DraftWorker,
    SupportsPipelineProxy,
    validate_draft_worker_cls,
    verify_conformance,
)
from tests.stand_ins import StandInDraft
from tests._sglang import import_sglang

#: The root of the patched copy (the folder holding ``sglang/``), or None.
PATCHED_ROOT = os.environ.get("SPEC_PROTOCOLS_PATCHED_SGLANG")

if not PATCHED_ROOT:
    pytest.skip("runs inside a patched sglang; tests/slow/test_integration_sglang.py starts one", allow_module_level=True)

pytestmark = pytest.mark.sglang_runtime

SPEC = "sglang.srt.speculative."
PROCESSOR = "sglang.srt.managers.scheduler_components.batch_result_processor"


def patched(module: str) -> ModuleType:
    """Import ``module`` and check it comes from the patched copy, not the installed sglang."""
    loaded = import_sglang(module)
    assert PATCHED_ROOT is not None
    assert loaded.__file__ is not None and Path(loaded.__file__).is_relative_to(PATCHED_ROOT), loaded.__file__
    return loaded


# -- 0001, 0002: sglang imports spec_protocols ------------------------------------------


def test_base_spec_worker_uses_the_protocols() -> None:
    """0001: BaseSpecWorker's draft worker is a spec_protocols.DraftWorker."""
    module = patched(SPEC + "base_spec_worker")
    hints = typing.get_type_hints(module.BaseSpecWorker.draft_worker.fget)
    assert hints["return"] == Optional[DraftWorker]


def test_draft_worker_common_uses_the_protocols() -> None:
    """0002: build_draft_tp_worker validates with spec_protocols' own check."""
    module = patched(SPEC + "draft_worker_common")
    assert module.validate_draft_worker_cls is validate_draft_worker_cls


# -- 0001: the defaults behave as before ------------------------------------------------


class _Target:
    """A target worker whose runner knows its speculative algorithm."""

    def __init__(self, algorithm: str) -> None:
        spec = SimpleNamespace(
            is_ngram=lambda: algorithm == "ngram",
            is_frozen_kv_mtp=lambda: algorithm == "frozen",
            is_dflash_family=lambda: algorithm == "dflash",
        )
        self.model_runner = SimpleNamespace(spec_algorithm=spec)


def _worker(draft: object, algorithm: str = "eagle") -> Any:
    base = patched(SPEC + "base_spec_worker").BaseSpecWorker

    class Worker(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self._target_worker = _Target(algorithm)
            self._draft_worker = draft

        def forward_batch_generation(self, batch: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    return Worker()


class _MultiRunnerDraft(StandInDraft):
    """An EAGLE-style draft: it lists its runners."""

    draft_runners = ("runner-a", "runner-b")


def test_draft_runners_defaults_unchanged() -> None:
    """0001 and 0003: the runner lists come out as BaseSpecWorker built them before."""
    eagle = _worker(_MultiRunnerDraft())
    assert eagle.weight_update_runners() == [("draft", "runner-a"), ("draft", "runner-b")]
    assert eagle.draft_model_runners() == ("runner-a", "runner-b")
    # DFlash and DSpark draft with a TpModelWorker: its one model_runner.
    assert _worker(StandInDraft(), "dflash").draft_model_runners() == ("model-runner",)
    assert _worker(StandInDraft(), "ngram").draft_model_runners() == ()
    assert _worker(None).weight_update_runners() == []


def test_a_draft_without_draft_runners_fails_as_before() -> None:
    """0001: a TpModelWorker-like draft has no draft_runners; the error is the
    AttributeError the plain attribute read raised, with the same message."""
    worker = _worker(StandInDraft())
    with pytest.raises(AttributeError, match="^'StandInDraft' object has no attribute 'draft_runners'$"):
        worker.weight_update_runners()
    with pytest.raises(AttributeError, match="'draft_runners'"):
        worker.draft_model_runners()


# -- 0003: note_request_finished reaches any worker that has it --------------------------


class _ProtocolOnlyWorker:
    """A speculative worker with the hook and no sglang base class."""

    def __init__(self) -> None:
        self.finished: list[tuple[str, bool]] = []

    def note_request_finished(self, *, rid: str, natural_stop: bool) -> None:
        self.finished.append((rid, natural_stop))


class _NoHookWorker:
    """A worker without the hook: it must not be called, and nothing may fail."""


@dataclass
class Processing:
    """The patched batch-result processor module, with what it released."""

    module: ModuleType
    released: list[object]


@pytest.fixture
def processing(monkeypatch: pytest.MonkeyPatch) -> Processing:
    """The patched batch-result processor, its runtime configuration and KV
    release faked (CPU, no scheduler, nothing published)."""
    module = patched(PROCESSOR)
    lazy = SimpleNamespace(mamba=SimpleNamespace(enable_mamba_extra_buffer_lazy=False))
    monkeypatch.setattr(module, "get_exec", lambda: lazy)
    monkeypatch.setattr(module, "get_disagg", lambda: SimpleNamespace(disaggregation_decode_enable_offload_kvcache=False))
    monkeypatch.setattr(module, "get_memory", lambda: SimpleNamespace(enable_hisparse=False))
    monkeypatch.setattr(module, "get_global_indexer_capturer", lambda: None)
    released: list[object] = []
    monkeypatch.setattr(module, "release_kv_cache", lambda req, tree_cache, checkpoint: released.append(req))
    return Processing(module, released)


def _finish(processing: Processing, draft_worker: object, matched: bool) -> SimpleNamespace:
    """Run the patched processor's finished-request path for one request."""
    schedule_batch = import_sglang("sglang.srt.managers.schedule_batch")
    cls = processing.module.SchedulerBatchResultProcessor
    fields: dict[str, Any] = {f.name: None for f in dataclasses.fields(cls)}
    fields.update(draft_worker=draft_worker, model_worker=SimpleNamespace(), tree_cache=SimpleNamespace())
    processor = cls(**fields)
    reason = schedule_batch.FINISH_MATCHED_TOKEN(matched=2) if matched else schedule_batch.FINISH_LENGTH(length=8)
    req = SimpleNamespace(
        rid="req-1",
        finished=lambda: True,
        finished_reason=reason,
        kv=SimpleNamespace(mamba_ping_pong_track_buffer=None),
        multimodal_inputs=None,
        session=None,
        return_routed_experts=False,
        mamba_lazy_checkpoint=False,
        time_stats=SimpleNamespace(set_completion_time=lambda: None),
    )
    batch = SimpleNamespace(mamba_track_mask_cpu=None)
    result = SimpleNamespace(num_correct_drafts_per_req_cpu=None)
    processor._handle_finish_state_updated_req(req, batch, result, 0, None)
    return req


def test_request_finished_reaches_a_worker_without_the_base(processing: Processing) -> None:
    """0003: the guard is the capability, not BaseSpecWorker."""
    worker = _ProtocolOnlyWorker()
    req = _finish(processing, worker, matched=True)
    assert worker.finished == [("req-1", True)]
    _finish(processing, worker, matched=False)
    assert worker.finished == [("req-1", True), ("req-1", False)]
    assert processing.released[0] is req  # the rest of the path ran too


def test_request_finished_still_reaches_base_spec_workers(processing: Processing) -> None:
    """0003: BaseSpecWorker subclasses (DSpark's hook) are unaffected."""
    worker = _worker(None)
    calls: list[tuple[str, bool]] = []
    worker.note_request_finished = lambda *, rid, natural_stop: calls.append((rid, natural_stop))
    _finish(processing, worker, matched=True)
    assert calls == [("req-1", True)]


@pytest.mark.parametrize("draft_worker", [None, _NoHookWorker()], ids=["no-speculative-decoding", "no-hook"])
def test_request_finished_skipped_without_the_hook(processing: Processing, draft_worker: object) -> None:
    """0003: nothing is called, and nothing fails, for a worker without the hook."""
    req = _finish(processing, draft_worker, matched=True)
    assert processing.released == [req]


# -- 0002: build_draft_tp_worker validates the class before building anything -----------


class _CannotTakeTheKeywords(StandInDraft):
    """Its constructor takes server_args only; build_draft_tp_worker passes eight keywords."""

    built: list[object] = []

    def __init__(self, server_args: Any) -> None:  # type: ignore[override]
        type(self).built.append(server_args)


class _Recorder:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        return "triton"


def _build(module: ModuleType, cls: object, **extra: Any) -> Any:
    return module.build_draft_tp_worker(
        server_args=SimpleNamespace(),
        gpu_id=0,
        nccl_port=0,
        target_model_config=SimpleNamespace(context_len=4096, vocab_size=32000),
        algo_label="TEST",
        draft_worker_cls=cls,
        **extra,
    )


def test_build_draft_tp_worker_rejects_a_bad_class_before_building(monkeypatch: pytest.MonkeyPatch) -> None:
    """0002: the validation error comes first: no constructor ran, and not even
    the attention backend was resolved (the step before construction)."""
    module = patched(SPEC + "draft_worker_common")
    resolve = _Recorder()
    monkeypatch.setattr(module, "resolve_draft_worker_attention_backend", resolve)
    _CannotTakeTheKeywords.built.clear()
    with pytest.raises(TypeError, match="cannot be used as draft_worker_cls") as raised:
        _build(module, _CannotTakeTheKeywords)
    assert "gpu_id" in str(raised.value)  # names what the constructor cannot take
    assert _CannotTakeTheKeywords.built == []
    assert resolve.calls == 0


def test_build_draft_tp_worker_builds_a_conforming_class(monkeypatch: pytest.MonkeyPatch) -> None:
    """0002: a conforming injected class passes the check and reaches the bundle."""
    module = patched(SPEC + "draft_worker_common")
    moe_utils = import_sglang("sglang.srt.layers.moe.utils")
    monkeypatch.setattr(moe_utils, "draft_model_build_scope", nullcontext)

    class Draft(StandInDraft):
        @property
        def model_runner(self) -> Any:
            return SimpleNamespace(model="draft-model", model_config=SimpleNamespace(vocab_size=None))

    bundle = _build(module, Draft, attention_backend_override="triton")
    assert type(bundle.draft_worker) is Draft
    assert bundle.draft_model == "draft-model"
    assert bundle.resolved_attention_backend == "triton"
    assert bundle.draft_worker.draft_runner.model == "draft-model"


# -- 0004: the pipeline-parallel keyword --------------------------------------------------


def test_frozen_kv_mtp_takes_pp_proxy_tensors() -> None:
    """0004: FrozenKVMTPWorkerV2 satisfies SupportsPipelineProxy (it did not in 0.5.23).

    (UnoWorkerV2 does not import on CPU; tests/checkers/test_integration_sglang.py
    checks it statically.)"""
    cls = patched(SPEC + "frozen_kv_mtp_worker_v2").FrozenKVMTPWorkerV2
    result = verify_conformance(cls, SupportsPipelineProxy)
    assert result.ok, result.format()


# -- 0007: the default algorithm object answers the scheduler ---------------------------


def test_a_default_registration_answers_the_scheduler_start_up_calls() -> None:
    """0007: a plugin registered with the default ``spec_class`` gets a
    ``CustomSpecAlgo`` that answers what ``Scheduler.__init__`` calls on it
    (``init_disaggregation``, ``init_overlap``) and what the overlap relay asks
    (``need_topk``), as the enum answers for an algorithm with the same
    predicates: the calls made as the scheduler makes them, on a CPU device."""
    import torch

    registry = patched(SPEC + "spec_registry")
    spec_info = patched(SPEC + "spec_info")
    name = f"SPEC_PROTOCOLS_DEFAULT_{uuid.uuid4().hex[:8].upper()}"

    @spec_info.SpeculativeAlgorithm.register(name, supports_overlap=True)
    def _factory(server_args: object) -> type:
        return object

    algorithm = spec_info.SpeculativeAlgorithm.from_string(name)
    assert type(algorithm) is registry.CustomSpecAlgo
    assert algorithm.carries_draft_hidden_states() is False
    pool = SimpleNamespace(req_to_token=torch.zeros((4, 8), dtype=torch.int32))
    future_map = algorithm.create_future_map(
        torch.device("cpu"), pool, needs_cpu_seq_lens=True, needs_confidence_relay=False
    )
    assert type(future_map).__name__ == "FutureMap"
    assert future_map.spec_algo is algorithm
    assert algorithm.need_topk() is False
    assert algorithm.get_platform_worker_cls() is None  # no out-of-tree platform on this machine


def test_a_spec_class_without_a_start_up_method_is_refused_at_registration() -> None:
    """0007: the registration guard compares every public method of the enum, so
    a ``spec_class`` that drops one the scheduler calls fails when registered,
    not in ``Scheduler.__init__``."""
    patched(SPEC + "spec_registry")  # where the guard is
    spec_info = patched(SPEC + "spec_info")

    # What the guard used to hold a spec_class to: every predicate, nothing more.
    predicates = {
        member: (lambda self: False)
        for member in vars(spec_info.SpeculativeAlgorithm)
        if member.startswith(("is_", "supports_"))
    }
    predicates_only = type("PredicatesOnly", (), predicates)
    with pytest.raises(TypeError, match="create_future_map"):
        spec_info.SpeculativeAlgorithm.register(f"SPEC_PROTOCOLS_NO_MAP_{uuid.uuid4().hex[:8].upper()}", spec_class=predicates_only)
