"""The pytest plugin from the installed wheel: ``assert_conforms`` and ``--spec-protocols-gate``.

A consumer's own pytest run, in a venv holding the wheel (with its checkers)
and pytest at the dev extra's pin, from a folder outside the checkout. The
``assert_conforms`` test file is docs/ci.md's snippet, naming the worker as
the snippet does (``"module:Class"``, or the class imported at the top).
``assert_conforms`` checks a class at runtime, so the class must import: with
no sglang, that is a structural worker (``SpecWorkerBase``, no sglang base);
a ``BaseSpecWorker`` subclass is tried where sglang's source is installed but
its runtime stack is not, and fails in one line."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.installed._userland import (
    CHECKOUT,
    Ran,
    Venv,
    copy_plugin,
    doc_block,
    expect,
    pins,
    plugin_source,
    run,
    substitute,
    user_env,
)


STRUCTURAL = '''\
"""Workers written against spec_protocols alone: importable with no sglang."""

from spec_protocols import SpecWorkerBase


class StructuralWorker(SpecWorkerBase):
    # The scheduler's constructor call (assert_conforms checks it as the gate does).
    def __init__(self, server_args, gpu_id, nccl_port, target_worker):
        super().__init__(target_worker=target_worker)

    def forward_batch_generation(self, batch, /, *, on_publish=None):
        return None


class SketchyWorker:
    def forward_batch_generation(self, batch, on_publish):  # on_publish without a default
        return None
'''


def _consumer_test(tree: Path, module: str, worker: str) -> str:
    """docs/ci.md's assert_conforms snippet, for ``worker`` of ``module``: named
    ``"module:Class"`` where the snippet names ``"my_plugin.worker:MyWorker"``,
    else the class, imported at the top of the test module."""
    snippet = doc_block(tree / "docs" / "ci.md", "python", "assert_conforms(")
    if "my_plugin.worker:MyWorker" in snippet:
        return substitute(snippet, {"my_plugin.worker:MyWorker": f"{module}:{worker}"})
    return f"from {module} import {worker}\n\n\n" + substitute(snippet, {"MyWorker": worker})


def _pytest(venv: Venv, folder: Path, cache: Path, tree: Path, *args: str) -> Ran:
    env = user_env(venv.bin, cache, tree)
    return run(["pytest", "-rA", *args], cwd=folder, env=env, timeout=600)


def test_the_pytest_pin_is_the_dev_extras() -> None:
    dev = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["dev"]
    assert pins()["pytest"] in dev, (pins()["pytest"], dev)


def test_assert_conforms_passes_a_structural_worker(bare_venv: Venv, tree: Path, home: Path, cache: Path) -> None:
    (home / "workers.py").write_text(STRUCTURAL, encoding="utf-8")
    (home / "test_conformance.py").write_text(_consumer_test(tree, "workers", "StructuralWorker"), encoding="utf-8")
    ran = expect(_pytest(bare_venv, home, cache, tree), 0)
    assert "PASSED test_conformance.py::test_worker" in ran.stdout, ran.describe()
    assert "plugins: spec-protocols-" in ran.stdout, ran.describe()


def test_assert_conforms_lists_every_problem(bare_venv: Venv, tree: Path, home: Path, cache: Path) -> None:
    (home / "workers.py").write_text(STRUCTURAL, encoding="utf-8")
    (home / "test_conformance.py").write_text(_consumer_test(tree, "workers", "SketchyWorker"), encoding="utf-8")
    ran = expect(_pytest(bare_venv, home, cache, tree), 1)
    assert "FAILED test_conformance.py::test_worker" in ran.stdout, ran.describe()
    assert "workers.SketchyWorker does not conform to SpecWorker" in ran.stdout, ran.describe()
    for problem in ("- forward_batch_generation [signature]", "- clear_cache_pool [missing]",
                    "- weight_update_runners [missing]"):
        assert problem in ran.stdout, f"{problem!r} is not listed\n{ran.describe()}"


def test_assert_conforms_without_sglangs_runtime_stack_fails_in_one_line(
    sglang_venv: Venv, tree: Path, home: Path, cache: Path
) -> None:
    # sglang's source is installed (--no-deps) but not its CPU dependency set:
    # importing a BaseSpecWorker subclass stops at sglang's first import of
    # numpy. The test fails (exit 1, not a collection error) with one line
    # that names the import error, not a traceback through sglang's package.
    copy_plugin(plugin_source("spec_example_plugin", tree), home)
    (home / "test_conformance.py").write_text(
        _consumer_test(tree, "spec_example_plugin.worker", "ExampleWorker"), encoding="utf-8"
    )
    ran = expect(_pytest(sglang_venv, home, cache, tree), 1)
    lines = ran.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip("_ ") == "test_worker"), None)
    end = next((i for i, line in enumerate(lines) if "short test summary info" in line), None)
    assert start is not None and end is not None, ran.describe()
    failure = [line for line in lines[start + 1 : end] if line.strip()]
    assert len(failure) == 1, f"the failure is not one line\n{ran.describe()}"
    assert "No module named 'numpy'" in failure[0], ran.describe()
    assert "Traceback" not in ran.output and "site-packages/sglang/" not in ran.output, ran.describe()


GATE_ARGS = ("--spec-protocols-sglang", "0.5.23", "--spec-protocols-checker", "mypy", "--spec-protocols-checker", "pyright")


def test_gate_items_pass_a_conforming_plugin(bare_venv: Venv, tree: Path, home: Path, cache: Path) -> None:
    copy_plugin(plugin_source("spec_example_plugin", tree), home)
    ran = expect(_pytest(bare_venv, home, cache, tree, "--spec-protocols-gate", "spec_example_plugin", *GATE_ARGS), 0)
    for item in ("spec_example_plugin.algorithm.ExampleAlgorithm[SpecAlgorithm]",
                 "spec_example_plugin.draft.ExampleDraftWorker[DraftWorker]",
                 "spec_example_plugin.draft.ExampleDraftWorker[DraftWorkerFactory]",
                 "spec_example_plugin.worker.ExampleWorker[SpecWorker]"):
        assert f"PASSED spec-protocols-gate::{item}" in ran.stdout, f"{item} did not pass\n{ran.describe()}"
    assert "4 passed" in ran.stdout, ran.describe()


def test_gate_items_fail_a_worker_without_forward_batch_generation(
    bare_venv: Venv, tree: Path, home: Path, cache: Path
) -> None:
    copy_plugin(plugin_source("spec_forgetful_plugin", tree), home)
    ran = expect(_pytest(bare_venv, home, cache, tree, "--spec-protocols-gate", "spec_forgetful_plugin", *GATE_ARGS), 1)
    assert "FAILED spec-protocols-gate::spec_forgetful_plugin.worker.ForgetfulWorker[SpecWorker]" in ran.stdout, ran.describe()
    for checker in ("mypy", "pyright"):
        assert f"- [{checker}] forward_batch_generation: missing: ForgetfulWorker has no forward_batch_generation" in ran.stdout, ran.describe()
    assert "spec-protocols-gate::error" not in ran.stdout, ran.describe()
