"""The out-of-tree plugin in ``examples/sglang_plugin_example``: registration, injection, conformance.

The package is imported from its source directory (it is not installed).
Tests that import sglang are marked ``sglang_runtime``; the gate test is
marked ``checkers``.

This module is the fast part; tests/slow/test_examples.py (slow, no checker), tests/checkers/test_examples.py (runs mypy or pyright) hold the rest.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from spec_protocols import DraftWorker, DraftWorkerFactory, SpecWorker, validate_draft_worker_cls, verify_conformance
from tests._paths import REPO_ROOT
from tests._sglang import import_sglang

EXAMPLE = REPO_ROOT / "examples" / "sglang_plugin_example"
@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    yield
    for name in [m for m in sys.modules if m == "spec_example_plugin" or m.startswith("spec_example_plugin.")]:
        del sys.modules[name]


def _python(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=EXAMPLE, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


def test_entry_point_names_the_register_function() -> None:
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["sglang.srt.plugins"] == {"spec_example": "spec_example_plugin:register"}


def test_importing_the_package_imports_neither_sglang_nor_torch() -> None:
    out = _python(
        "import sys, spec_example_plugin; "
        "print(sorted(m for m in ('sglang', 'torch') if m in sys.modules))"
    )
    assert out == "[]"


@pytest.mark.sglang_runtime
def test_classes_conform_at_runtime(on_path: None) -> None:
    import_sglang("sglang.srt.speculative.base_spec_worker")
    import_sglang("sglang.srt.speculative.draft_worker_common")
    from spec_example_plugin.draft import ExampleDraftWorker
    from spec_example_plugin.worker import ExampleWorker

    for cls, protocol in ((ExampleWorker, SpecWorker), (ExampleDraftWorker, DraftWorker), (ExampleDraftWorker, DraftWorkerFactory)):
        result = verify_conformance(cls, protocol)
        assert result.ok, result.format()
    validate_draft_worker_cls(ExampleDraftWorker)


@pytest.mark.sglang_runtime
def test_worker_injects_its_draft_class_and_runs_the_target(on_path: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import_sglang("sglang.srt.speculative.base_spec_worker")
    import_sglang("sglang.srt.speculative.draft_worker_common")
    from spec_example_plugin import worker as worker_module
    from spec_example_plugin.draft import ExampleDraftWorker

    calls: list[dict[str, Any]] = []
    bundle = SimpleNamespace(draft_worker=object(), draft_model_runner=object())

    def fake_build(**kwargs: Any) -> SimpleNamespace:
        calls.append(kwargs)
        return bundle

    monkeypatch.setattr(worker_module, "build_draft_tp_worker", fake_build)
    forwarded: list[object] = []
    # The target's own result carries no draft input (managers/utils.py: next_draft_input=None).
    result = SimpleNamespace(next_draft_input=None)
    target = SimpleNamespace(
        model_runner=SimpleNamespace(model_config="target-config"),
        random_seed=7,
        forward_batch_generation=lambda batch: forwarded.append(batch) or result,
    )
    worker = worker_module.ExampleWorker(server_args="args", gpu_id=0, nccl_port=1234, target_worker=target)

    assert len(calls) == 1
    assert calls[0]["draft_worker_cls"] is ExampleDraftWorker
    assert calls[0]["target_model_config"] == "target-config"
    assert calls[0]["random_seed"] == 7
    assert worker.target_worker is target
    assert worker.draft_worker is bundle.draft_worker
    # The target's result goes back with a draft input: the overlap loop makes it the batch's spec_info.
    assert worker.forward_batch_generation("batch", on_publish=print) is result
    assert result.next_draft_input is not None
    assert forwarded == ["batch"]


# -- adoption: the pre-commit hooks (.pre-commit-hooks.yaml) -------------------

HOOKS_FILE = EXAMPLE.parent.parent / ".pre-commit-hooks.yaml"


def _hooks() -> dict[str, dict[str, Any]]:
    yaml = pytest.importorskip("yaml", reason="PyYAML is needed to read .pre-commit-hooks.yaml")
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS_FILE.read_text())}


def test_pre_commit_hooks_declare_the_gate() -> None:
    hooks = _hooks()
    assert set(hooks) == {"spec-protocols", "spec-protocols-files"}
    for hook in hooks.values():
        assert hook["entry"] == "spec-protocols check"
        assert hook["language"] == "python"
        assert hook["types"] == ["python"]
    assert hooks["spec-protocols"]["pass_filenames"] is False
    assert hooks["spec-protocols-files"]["pass_filenames"] is True


def test_ci_guide_documents_every_output_format_and_exit_status() -> None:
    from spec_protocols.gate._reports import FORMATS

    guide = (EXAMPLE.parent.parent / "docs" / "ci.md").read_text()
    for fmt in FORMATS:
        assert f"| `{fmt}` |" in guide, fmt
    for status in ("| 0 |", "| 1 |", "| 2 |"):
        assert status in guide


# -- docs/authoring.md's worked example (examples/walkthrough) -----------------

WALKTHROUGH = EXAMPLE.parent / "walkthrough"


@pytest.fixture
def walkthrough_on_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(WALKTHROUGH))
    yield
    for name in [m for m in sys.modules if m == "tiny_draft" or m.startswith("tiny_draft.")]:
        del sys.modules[name]


@pytest.mark.sglang_runtime
@pytest.mark.parametrize("worker_path", ["spec_example_plugin.worker:ExampleWorker", "tiny_draft.worker:TinyDraftSpecWorker"])
def test_a_tpmodelworker_draft_answers_what_the_scheduler_reads(
    worker_path: str, on_path: None, walkthrough_on_path: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # BaseSpecWorker's weight_update_runners and primary_draft_kv_pool (read at
    # start-up by Scheduler.init_disaggregation) both end in
    # draft_worker.draft_runners for an algorithm sglang does not know, which
    # a TpModelWorker draft lacks: a worker that kept either would raise here.
    import importlib

    tp_worker = import_sglang("sglang.srt.managers.tp_worker")
    spec_info = import_sglang("sglang.srt.speculative.spec_info")
    module_name, _, class_name = worker_path.partition(":")
    module = importlib.import_module(module_name)
    runner = SimpleNamespace(token_to_kv_pool="draft-pool")
    bundle = SimpleNamespace(draft_worker=object.__new__(tp_worker.TpModelWorker), draft_model_runner=runner)
    monkeypatch.setattr(module, "build_draft_tp_worker", lambda **kwargs: bundle)
    # Any algorithm but NGRAM, FROZEN_KV_MTP and the DFlash family takes the
    # draft_runners branch; EAGLE stands for an unknown one.
    target = SimpleNamespace(
        model_runner=SimpleNamespace(model_config="target-config", spec_algorithm=spec_info.SpeculativeAlgorithm.EAGLE),
        random_seed=7,
    )
    worker = getattr(module, class_name)(server_args="args", gpu_id=0, nccl_port=1234, target_worker=target)
    assert worker.primary_draft_kv_pool == "draft-pool"
    assert list(worker.weight_update_runners()) == [("draft", runner)]


