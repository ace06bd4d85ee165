"""``write_skeleton``: file naming, refusals, and skeletons that conform as generated.

The generated modules are checked four ways: the source itself (AST), the
runtime checker, mypy --strict plus pyright strict (marked ``checkers``), and
the gate (marked ``checkers``; skipped until ``spec_protocols.gate._pipeline`` exists).

This module is the fast part; tests/checkers/test_scaffold.py (runs mypy or pyright) holds the rest.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from typing_extensions import get_protocol_members

from spec_protocols import DRAFT_WORKER_CTOR_KEYWORDS, SpecWorker, verify_conformance
from spec_protocols.gate._model import GateError
from spec_protocols.gate._scaffold import class_name_for, module_name_for, write_skeleton

from tests._sglang import import_sglang

def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_scaffold_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    return next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name)


# -- names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cls", "module"),
    [
        ("MyWorker", "MyWorker", "my_worker"),
        ("my_worker", "MyWorker", "my_worker"),
        ("HTTPDraft", "HTTPDraft", "http_draft"),
        ("Eagle3Worker", "Eagle3Worker", "eagle3_worker"),
        ("lookahead", "Lookahead", "lookahead"),
    ],
)
def test_names(name: str, cls: str, module: str, tmp_path: Path) -> None:
    assert class_name_for(name) == cls
    assert module_name_for(cls) == module
    path = write_skeleton("worker", name, tmp_path)
    assert path == tmp_path / f"{module}.py"
    assert f"class {cls}(SpecWorkerBase):" in path.read_text()


@pytest.mark.parametrize("name", ["1Worker", "my-worker", "class", "My Worker", "", "_", "Typing", "Sglang"])
def test_bad_name_is_a_one_line_gate_error(name: str, tmp_path: Path) -> None:
    with pytest.raises(GateError) as info:
        write_skeleton("worker", name, tmp_path)
    assert "\n" not in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "my_worker.py"
    target.write_text("# mine\n")
    with pytest.raises(GateError, match="already exists"):
        write_skeleton("draft", "MyWorker", tmp_path)
    assert target.read_text() == "# mine\n"


def test_missing_directory_and_unknown_kind(tmp_path: Path) -> None:
    with pytest.raises(GateError, match="not a directory"):
        write_skeleton("worker", "MyWorker", tmp_path / "nope")
    with pytest.raises(GateError, match="unknown skeleton kind"):
        write_skeleton("spec", "MyWorker", tmp_path)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


# -- the worker skeleton -------------------------------------------------------


def test_worker_skeleton_conforms_at_runtime(tmp_path: Path) -> None:
    module = _load(write_skeleton("worker", "MyWorker", tmp_path))
    result = verify_conformance(module.MyWorker, SpecWorker)
    assert result.ok, result.format()


def test_worker_skeleton_has_scheduler_constructor_and_a_todo_step(tmp_path: Path) -> None:
    source = write_skeleton("worker", "MyWorker", tmp_path).read_text()
    cls = _class(ast.parse(source), "MyWorker")
    init = _method(cls, "__init__")
    # The keywords sglang's scheduler passes (scheduler.py:1056-1064).
    assert [a.arg for a in init.args.args] == ["self", "server_args", "gpu_id", "nccl_port", "target_worker"]
    step = _method(cls, "forward_batch_generation")
    assert step.returns is not None and ast.unparse(step.returns) == "GenerationBatchResult"
    assert [a.arg for a in step.args.posonlyargs] == ["self", "batch"]
    assert [a.arg for a in step.args.kwonlyargs] == ["on_publish"]
    assert "TODO" in (ast.get_source_segment(source, step) or "")
    # Every parameter and return is annotated.
    for func in (init, step):
        for arg in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs][1:]:
            assert arg.annotation is not None, (func.name, arg.arg)
        assert func.returns is not None


def test_worker_skeleton_lists_every_inherited_member_as_a_todo(tmp_path: Path) -> None:
    source = write_skeleton("worker", "MyWorker", tmp_path).read_text()
    assert "raise NotImplementedError" in source
    for member in get_protocol_members(SpecWorker) - {"forward_batch_generation"}:
        assert f"# TODO({member}): inherited default: " in source, member
    # The default text comes from SpecWorkerBase itself.
    assert "TODO(weight_load_time): inherited default: The draft worker's weight load time" in source


# -- the draft skeleton ------------------------------------------------------


def test_draft_skeleton_accepts_exactly_the_build_draft_tp_worker_keywords(tmp_path: Path) -> None:
    tree = ast.parse(write_skeleton("draft", "MyDraft", tmp_path).read_text())
    cls = _class(tree, "MyDraft")
    assert [ast.unparse(b) for b in cls.bases] == ["TpModelWorker"]
    init = _method(cls, "__init__")
    assert tuple(a.arg for a in init.args.kwonlyargs) == DRAFT_WORKER_CTOR_KEYWORDS
    assert init.args.kwarg is not None and init.args.kwarg.arg == "kwargs"
    # ... and forwards every one of them, plus **kwargs, to TpModelWorker.__init__.
    calls = [n for n in ast.walk(init) if isinstance(n, ast.Call) and ast.unparse(n.func) == "super().__init__"]
    assert len(calls) == 1
    forwarded = [k.arg for k in calls[0].keywords]
    assert forwarded == [*DRAFT_WORKER_CTOR_KEYWORDS, None]  # None is **kwargs
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert any(n.module == "sglang.srt.managers.tp_worker" and n.names[0].name == "TpModelWorker" for n in imports)


@pytest.mark.sglang_runtime
def test_draft_skeleton_conforms_at_runtime(tmp_path: Path) -> None:
    import_sglang("sglang.srt.managers.tp_worker")
    from spec_protocols import DraftWorker, DraftWorkerFactory, validate_draft_worker_cls

    module = _load(write_skeleton("draft", "MyDraft", tmp_path))
    for protocol in (DraftWorker, DraftWorkerFactory):
        result = verify_conformance(module.MyDraft, protocol)
        assert result.ok, result.format()
    validate_draft_worker_cls(module.MyDraft)


# -- static checkers and the gate --------------------------------------------

