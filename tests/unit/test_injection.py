"""validate_draft_worker_cls and the typed build_draft_tp_worker.

The delegation tests replace sglang's ``draft_worker_common`` module with a
recording fake in ``sys.modules``, so they run without torch or sglang.
"""

from __future__ import annotations

import abc
import sys
import types
from typing import Any

import pytest

from spec_protocols import (
    DRAFT_WORKER_CTOR_KEYWORDS,
    build_draft_tp_worker,
    validate_draft_worker_cls,
)
from tests.stand_ins import StandInDraft as GoodDraft  # takes what build_draft_tp_worker passes
from tests._sglang import import_sglang, sglang_class

SGLANG_MODULE = "sglang.srt.speculative.draft_worker_common"


def rejection(cls: Any) -> str:
    with pytest.raises(TypeError) as info:
        validate_draft_worker_cls(cls)
    return str(info.value)


def test_the_keywords_are_those_sglang_passes() -> None:
    assert DRAFT_WORKER_CTOR_KEYWORDS == (
        "server_args", "gpu_id", "nccl_port", "is_draft_worker",
        "random_seed", "load_group", "context_length", "draft_attention_backend",
    )


def test_a_correct_class_is_returned_unchanged() -> None:
    assert validate_draft_worker_cls(GoodDraft) is GoodDraft


def test_a_kwargs_constructor_is_accepted() -> None:
    class KwargsDraft(GoodDraft):
        def __init__(self, **kwargs: Any) -> None: ...

    assert validate_draft_worker_cls(KwargsDraft) is KwargsDraft


def test_rejects_a_non_class() -> None:
    message = rejection(GoodDraft(None, 0, 0))
    assert "not a class" in message
    assert "(1 problem)" in message
    assert "not a class" in rejection(lambda **kw: GoodDraft(**kw))


def test_rejects_an_abstract_class_naming_its_abstract_methods() -> None:
    class AbstractDraft(GoodDraft, abc.ABC):
        @abc.abstractmethod
        def draft(self) -> None: ...

        @abc.abstractmethod
        def draft_extend(self) -> None: ...

    message = rejection(AbstractDraft)
    assert "abstract class" in message
    assert "draft, draft_extend" in message


def test_rejects_a_constructor_naming_each_keyword_it_cannot_take() -> None:
    class OldCtor(GoodDraft):
        def __init__(self, server_args: Any, gpu_id: int, nccl_port: int, tp_rank: int,
                     is_draft_worker: bool = False) -> None: ...

    message = rejection(OldCtor)
    for keyword in ("random_seed", "load_group", "context_length", "draft_attention_backend"):
        assert f"keyword {keyword!r} cannot be passed" in message, keyword
    for keyword in ("server_args", "gpu_id", "nccl_port", "is_draft_worker"):
        assert f"keyword {keyword!r}" not in message, keyword
    assert "extra required parameter 'tp_rank'" in message
    assert "(self, server_args, gpu_id, nccl_port, tp_rank" not in message  # self is not shown
    assert "OldCtor(server_args" in message


def test_rejects_a_class_whose_instances_are_not_draft_workers() -> None:
    class NotADraft:
        def __init__(self, **kwargs: Any) -> None: ...

        def init_cuda_graphs(self, capture_decode_cuda_graph: bool) -> None: ...

        @property
        def init_attention_backends(self) -> None: ...

    message = rejection(NotADraft)
    assert "instances would not satisfy InjectableDraftWorker" in message
    assert "alloc_memory_pool [missing]" in message
    assert "init_attention_backends [kind]" in message
    assert "init_cuda_graphs [signature]" in message
    assert "weight_load_time [missing]" in message


def test_every_problem_is_listed_in_one_type_error() -> None:
    class Everything(abc.ABC):
        def __init__(self, server_args: Any, tp_rank: int) -> None: ...

        @abc.abstractmethod
        def draft(self) -> None: ...

    message = rejection(Everything)
    lines = [line for line in message.splitlines() if line.startswith("  - ")]
    assert "abstract class" in message
    assert "keyword 'gpu_id' cannot be passed" in message
    assert "extra required parameter 'tp_rank'" in message
    assert "instances would not satisfy InjectableDraftWorker: alloc_memory_pool" in message
    # 1 abstract + 7 keywords + 1 extra + 8 missing members (model_runner included)
    assert len(lines) == 17, message
    assert f"({len(lines)} problems)" in message


def test_getattr_does_not_make_a_draft_worker() -> None:
    class Delegating:
        def __init__(self, **kwargs: Any) -> None: ...

        def __getattr__(self, name: str) -> Any:
            return lambda *a, **k: None

    assert "alloc_memory_pool [missing]" in rejection(Delegating)


# -- build_draft_tp_worker delegation -------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return types.SimpleNamespace(draft_worker="the bundle", **kwargs)


@pytest.fixture
def fake_sglang(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """Put a fake draft_worker_common in sys.modules; no torch, no sglang."""
    recorder = Recorder()
    module = types.ModuleType(SGLANG_MODULE)
    module.build_draft_tp_worker = recorder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, SGLANG_MODULE, module)
    return recorder


BASE = dict(server_args="sa", gpu_id=1, nccl_port=2, target_model_config="mc", algo_label="EAGLE")


def test_build_forwards_only_the_arguments_given(fake_sglang: Recorder) -> None:
    bundle: Any = build_draft_tp_worker(**BASE)  # type: ignore[arg-type]
    # sglang's own defaults apply: no optional argument is passed at all.
    assert fake_sglang.calls == [BASE]
    assert bundle.draft_worker == "the bundle"


def test_build_passes_a_validated_class_and_the_rest(fake_sglang: Recorder) -> None:
    build_draft_tp_worker(**BASE, draft_worker_cls=GoodDraft, random_seed=7, load_group="lg",  # type: ignore[arg-type]
                          attention_backend_override="triton")
    assert fake_sglang.calls == [
        dict(BASE, draft_worker_cls=GoodDraft, random_seed=7, load_group="lg", attention_backend_override="triton")
    ]


def test_build_passes_an_explicit_none(fake_sglang: Recorder) -> None:
    build_draft_tp_worker(**BASE, random_seed=None, attention_backend_override=None)  # type: ignore[arg-type]
    assert fake_sglang.calls == [dict(BASE, random_seed=None, attention_backend_override=None)]


def test_build_rejects_a_bad_class_before_calling_sglang(fake_sglang: Recorder) -> None:
    class Bad(GoodDraft):
        def __init__(self, server_args: Any) -> None: ...

    with pytest.raises(TypeError, match="keyword 'gpu_id' cannot be passed"):
        build_draft_tp_worker(**BASE, draft_worker_cls=Bad)  # type: ignore[arg-type]
    assert fake_sglang.calls == []


def test_importing_spec_protocols_did_not_import_sglang_for_build() -> None:
    # The delegation import is deferred to the call (see the fixtures above).
    import spec_protocols._injection as injection

    assert "sglang" not in vars(injection)


# -- real sglang --------------------------------------------------------------------


@pytest.mark.sglang_runtime
def test_sglang_tp_model_worker_passes_validation() -> None:
    tp_model_worker = sglang_class("sglang.srt.managers.tp_worker", "TpModelWorker")
    assert validate_draft_worker_cls(tp_model_worker) is tp_model_worker


@pytest.mark.sglang_runtime
def test_sglang_draft_worker_common_accepts_these_keywords() -> None:
    # Guards DRAFT_WORKER_CTOR_KEYWORDS against drift: the real function's
    # parameters are the wrapper's, and its source passes exactly our keywords.
    import ast
    import inspect

    module: Any = import_sglang(SGLANG_MODULE)
    source = inspect.getsource(module.build_draft_tp_worker)
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "draft_worker_cls"]
    assert len(calls) == 1
    assert tuple(k.arg for k in calls[0].keywords) == DRAFT_WORKER_CTOR_KEYWORDS
    params = list(inspect.signature(module.build_draft_tp_worker).parameters)
    assert params == list(inspect.signature(build_draft_tp_worker).parameters)


def test_rejecting_a_non_class_runs_none_of_its_code() -> None:
    class Hostile:
        def __getattribute__(self, name: str) -> Any:
            raise AssertionError(f"read {name!r}")

        def __repr__(self) -> str:
            raise AssertionError("repr")

    message = rejection(Hostile())
    assert "not a class: got" in message
    assert "Hostile instance" in message
