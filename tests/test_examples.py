"""The out-of-tree plugin in ``examples/sglang_plugin_example``: registration, injection, conformance.

The package is imported from its source directory (it is not installed).
Tests that import sglang are marked ``sglang_runtime``; the gate test is
marked ``checkers``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from spec_protocols import DraftWorker, DraftWorkerFactory, SpecWorker, validate_draft_worker_cls, verify_conformance
from tests._sglang import import_sglang

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sglang_plugin_example"
PACKAGE = EXAMPLE / "spec_example_plugin"


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
@pytest.mark.slow
def test_register_adds_the_algorithm_once_and_not_at_import() -> None:
    import_sglang("sglang.srt.speculative.spec_info")
    out = _python(
        "from sglang.srt.speculative.spec_info import SpeculativeAlgorithm as S\n"
        "import spec_example_plugin as p\n"
        "from sglang.srt.speculative import spec_registry\n"
        "print(spec_registry.get_spec(p.ALGORITHM_NAME) is None)\n"  # nothing registered by importing
        "p.register(); p.register()\n"  # idempotent: sglang itself raises on a second registration
        "algo = S.from_string('example_spec')\n"
        "print(type(algo).__name__, algo.name, algo.supports_overlap)\n"
        "print(algo.factory(None).__qualname__)\n"
    )
    assert out.splitlines() == ["True", "CustomSpecAlgo EXAMPLE_SPEC True", "ExampleWorker"]


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
    target = SimpleNamespace(
        model_runner=SimpleNamespace(model_config="target-config"),
        random_seed=7,
        forward_batch_generation=lambda batch: forwarded.append(batch) or "result",
    )
    worker = worker_module.ExampleWorker(server_args="args", gpu_id=0, nccl_port=1234, target_worker=target)

    assert len(calls) == 1
    assert calls[0]["draft_worker_cls"] is ExampleDraftWorker
    assert calls[0]["target_model_config"] == "target-config"
    assert calls[0]["random_seed"] == 7
    assert worker.target_worker is target
    assert worker.draft_worker is bundle.draft_worker
    assert worker.forward_batch_generation("batch", on_publish=print) == "result"
    assert forwarded == ["batch"]


def _run_gate() -> Any:
    try:
        from spec_protocols.gate.api import run_gate
    except ImportError as exc:
        pytest.skip(f"the gate's programmatic API (spec_protocols.gate.api) is not importable yet: {exc}")
    return run_gate


@pytest.mark.checkers
@pytest.mark.slow
def test_the_gate_passes_the_example() -> None:
    report = _run_gate()([str(PACKAGE)])
    checked = sorted((r.check.target, r.check.protocol) for r in report.results)
    assert checked == [
        ("spec_example_plugin.draft.ExampleDraftWorker", "DraftWorker"),
        ("spec_example_plugin.draft.ExampleDraftWorker", "DraftWorkerFactory"),
        ("spec_example_plugin.worker.ExampleWorker", "SpecWorker"),
    ]
    failing = {f"{r.check.target}[{r.check.protocol}]": [p.message for p in r.problems] for r in report.results if not r.verdict.value == "pass"}
    assert not failing, failing
