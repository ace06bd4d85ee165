"""verify_conformance on sglang 0.5.23's own worker classes.

Every importable worker conforms to ``SpecWorker`` and every draft worker
class to ``DraftWorker``; the capability protocols record the two known
differences (see SGLANG_FACTS.md): NGRAM takes no ``grammar_barrier``, and
Uno and frozen-KV MTP take no ``pp_proxy_tensors``. ``ngram_worker`` needs
libcuda and ``uno_worker_v2`` needs flashinfer: those cases skip with the
import error as their reason, and their two capability facts are checked on a
class rebuilt from the ``forward_batch_generation`` in sglang's source instead.
"""

from __future__ import annotations

import pytest

from spec_protocols import (
    DraftWorker,
    DraftWorkerFactory,
    SpecWorker,
    SupportsGrammarOverlap,
    SupportsPipelineProxy,
    verify_conformance,
)
from tests._sglang import sglang_class

pytestmark = pytest.mark.sglang_runtime

SPEC = "sglang.srt.speculative."

# class name -> (module, accepts grammar_barrier, accepts pp_proxy_tensors)
SPEC_WORKERS: dict[str, tuple[str, bool, bool]] = {
    "EAGLEWorkerV2": ("eagle_worker_v2", True, True),
    "StandaloneWorkerV2": ("standalone_worker_v2", True, True),
    "FrozenKVMTPWorkerV2": ("frozen_kv_mtp_worker_v2", True, False),
    "MultiLayerEagleWorkerV2": ("multi_layer_eagle_worker_v2", True, True),
    "DFlashWorkerV2": ("dflash_worker_v2", True, True),
    "DSparkWorkerV2": ("dspark_components.dspark_worker_v2", True, True),
    "UnoWorkerV2": ("uno_worker_v2", True, False),
    "NGRAMWorker": ("ngram_worker", False, True),
}

DRAFT_WORKERS: dict[str, str] = {
    "EagleDraftWorker": SPEC + "eagle_worker_v2",
    "StandaloneDraftWorker": SPEC + "standalone_worker_v2",
    "MultiLayerEagleDraftWorker": SPEC + "multi_layer_eagle_worker_v2",
    "FrozenKVMTPDraftWorker": SPEC + "frozen_kv_mtp_worker_v2",
    "TpModelWorker": "sglang.srt.managers.tp_worker",
}


@pytest.mark.parametrize("name", list(SPEC_WORKERS))
def test_spec_worker_conforms(name: str) -> None:
    cls = sglang_class(SPEC + SPEC_WORKERS[name][0], name)
    result = verify_conformance(cls, SpecWorker)
    assert result.ok, result.format()


@pytest.mark.parametrize("name", list(SPEC_WORKERS))
def test_grammar_overlap_capability(name: str) -> None:
    module, grammar, _ = SPEC_WORKERS[name]
    result = verify_conformance(sglang_class(SPEC + module, name), SupportsGrammarOverlap)
    if grammar:
        assert result.ok, result.format()
    else:
        assert [(p.member, p.kind) for p in result.problems] == [("forward_batch_generation", "signature")]
        assert "'grammar_barrier'" in result.problems[0].message


@pytest.mark.parametrize("name", list(SPEC_WORKERS))
def test_pipeline_proxy_capability(name: str) -> None:
    module, _, pp = SPEC_WORKERS[name]
    result = verify_conformance(sglang_class(SPEC + module, name), SupportsPipelineProxy)
    if pp:
        assert result.ok, result.format()
    else:
        assert [(p.member, p.kind) for p in result.problems] == [("forward_batch_generation", "signature")]
        assert "'pp_proxy_tensors'" in result.problems[0].message


@pytest.mark.parametrize("name", list(DRAFT_WORKERS))
def test_draft_worker_conforms(name: str) -> None:
    result = verify_conformance(sglang_class(DRAFT_WORKERS[name], name), DraftWorker)
    assert result.ok, result.format()


def test_tp_model_worker_is_a_draft_worker_factory() -> None:
    cls = sglang_class("sglang.srt.managers.tp_worker", "TpModelWorker")
    result = verify_conformance(cls, DraftWorkerFactory)
    assert result.ok, result.format()


def test_getattr_workers_are_not_conforming_by_getattr() -> None:
    # DFlash and DSpark define __getattr__; they conform by their own members.
    # Removing one of those members from the view must be noticed.
    cls = sglang_class(SPEC + "dflash_worker_v2", "DFlashWorkerV2")
    assert "__getattr__" in vars(cls)
    stripped = type("Stripped", (cls,), {"forward_batch_generation": None})
    result = verify_conformance(stripped, SpecWorker)
    assert [(p.member, p.kind) for p in result.problems] == [("forward_batch_generation", "kind")]


def _method_from_source(module: str, class_name: str, method: str) -> type:
    """A class holding only ``method``, rebuilt from sglang's source without importing it.

    For the workers that cannot be imported here (NGRAM needs libcuda, Uno
    needs flashinfer): parameter kinds, names and which have defaults are what
    the capability protocols check; annotations and default values are not.
    """
    import ast
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("sglang")
    if spec is None or spec.origin is None:
        pytest.skip("sglang is not installed")
    path = Path(spec.origin).parent / "srt" / "speculative" / (module.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    args = item.args
                    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                        arg.annotation = None
                    for extra in (args.vararg, args.kwarg):
                        if extra is not None:
                            extra.annotation = None
                    args.defaults = [ast.Constant(None) for _ in args.defaults]
                    args.kw_defaults = [None if d is None else ast.Constant(None) for d in args.kw_defaults]
                    stub = ast.FunctionDef(name=method, args=args, body=[ast.Pass()], decorator_list=[], returns=None,
                                           type_params=[])
                    namespace: dict[str, object] = {}
                    code = ast.unparse(ast.fix_missing_locations(ast.Module(body=[stub], type_ignores=[])))
                    exec(code, namespace)
                    return type(class_name, (), {method: namespace[method]})
    raise AssertionError(f"{class_name}.{method} not found in {path}")


@pytest.mark.parametrize("name", ["UnoWorkerV2", "NGRAMWorker"])
def test_capabilities_of_unimportable_workers_from_source(name: str) -> None:
    module, grammar, pp = SPEC_WORKERS[name]
    cls = _method_from_source(module, name, "forward_batch_generation")
    assert verify_conformance(cls, SupportsGrammarOverlap).ok is grammar
    assert verify_conformance(cls, SupportsPipelineProxy).ok is pp
    # and the base protocol's form of the call is accepted by both
    assert [p for p in verify_conformance(cls, SpecWorker).problems if p.member == "forward_batch_generation"] == []
