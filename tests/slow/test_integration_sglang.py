"""The sglang integration series drops in (issue 13): integrations/sglang/0.5.23/.

What the three parts prove together, and how the patched tree is built:
tests/_integration_support.py.

This module is the slow part; tests/unit/test_integration_sglang.py (fast, no checker), tests/checkers/test_integration_sglang.py (runs mypy or pyright) hold the rest.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from spec_protocols.gate._contract import SglangSource

from tests._integration_support import (  # noqa: F401  (applied, installed, needs_patch, patched_tree, pristine: fixtures)
    TOUCHED,
    applied,
    env_with,
    installed,
    mirror_installed,
    needs_patch,
    patched_tree,
    pristine,
)
from tests._paths import REPO_ROOT, TESTS

INNER = TESTS / "slow" / "test_integration_sglang_patched.py"
EQUIVALENCE = TESTS / "unit" / "test_base_equivalence.py"

#: The inner tests that pin what the series changes: each must fail inside an
#: unpatched sglang (the others pin what must stay as it was).
FEATURE_TESTS = (
    "test_base_spec_worker_uses_the_protocols",
    "test_draft_worker_common_uses_the_protocols",
    "test_request_finished_reaches_a_worker_without_the_base",
    "test_build_draft_tp_worker_rejects_a_bad_class_before_building",
    "test_frozen_kv_mtp_takes_pp_proxy_tensors",
    "test_a_default_registration_answers_the_scheduler_start_up_calls",
    "test_a_spec_class_without_a_start_up_method_is_refused_at_registration",
)

#: The modules the series touches, named from their files.
MODULES = tuple(name.removesuffix(".py").replace("/", ".") for name in TOUCHED)


# -- inside a patched sglang --------------------------------------------------------------

_IMPORT_PROBE = """
import importlib, json, sys
out = {}
for name in sys.argv[1:]:
    try:
        module = importlib.import_module(name)
        out[name] = ["ok", module.__file__]
    except Exception as exc:
        out[name] = [f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}", None]
print(json.dumps(out))
"""


def _import_probe(env: dict[str, str], cwd: Path) -> dict[str, list[str | None]]:
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, *MODULES], env=env, cwd=cwd, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, list[str | None]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _base_class_guards(path: Path) -> list[int]:
    """Lines of ``isinstance(..., BaseSpecWorker)`` (a tuple of classes included)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            if len(node.args) == 2 and "BaseSpecWorker" in {
                n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)
            }:
                lines.append(node.lineno)
    return lines


def _private_runner_calls(path: Path) -> list[int]:
    """Lines of ``<anything>._draft_model_runners`` (BaseSpecWorker's private method)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "_draft_model_runners"
    ]


def test_managers_use_neither_the_base_class_guard_nor_the_private_call(pristine: Path, applied: Path) -> None:
    before: dict[str, list[int]] = {}
    after: dict[str, list[int]] = {}
    for path in sorted((pristine / "sglang/srt/managers").rglob("*.py")):
        name = path.relative_to(pristine).as_posix()
        patched = applied / name if name in TOUCHED else path
        before[name] = _base_class_guards(path) + _private_runner_calls(path)
        after[name] = _base_class_guards(patched) + _private_runner_calls(patched)
    # 0.5.23 has two guards and one private call: the check is not vacuous.
    assert sum(map(len, before.values())) == 3
    assert {name: lines for name, lines in after.items() if lines} == {}


@pytest.mark.sglang_runtime
def test_patched_modules_that_import_on_cpu_today_still_import(
    installed: SglangSource, patched_tree: Path, tmp_path: Path
) -> None:
    before = _import_probe(dict(os.environ), tmp_path)
    after = _import_probe(env_with(patched_tree), tmp_path)
    if all(outcome != "ok" for outcome, _ in before.values()):
        pytest.skip(f"no module of the series imports on this machine: {before}")
    for name, (outcome, file) in after.items():
        if outcome == "ok":
            assert file is not None and Path(file).is_relative_to(patched_tree), (name, file)
    # Same outcome for every module: what imported still does, and what
    # could not (UNO needs flashinfer) fails for the same reason.
    assert {name: outcome for name, (outcome, _) in after.items()} == {
        name: outcome for name, (outcome, _) in before.items()
    }


def _inner_pytest(tree: Path, tmp_path: Path, *selection: str) -> dict[str, str]:
    """Run pytest on ``selection`` inside ``tree``'s sglang; {test name: outcome}."""
    report = tmp_path / f"report-{len(list(tmp_path.glob('report-*')))}.xml"
    proc = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "--rootdir", str(REPO_ROOT), "-c", str(REPO_ROOT / "pyproject.toml"),
            f"--junitxml={report}", *selection,
        ],
        env=env_with(tree, SPEC_PROTOCOLS_PATCHED_SGLANG=str(tree)),
        cwd=tmp_path,  # not the checkout: the tree must come first on the path
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert report.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[f"{case.get('classname')}::{case.get('name')}"] = kinds[0] if kinds else "passed"
    return outcomes


@pytest.mark.sglang_runtime
def test_behaviour_and_lifecycle_equivalence_inside_the_patched_sglang(patched_tree: Path, tmp_path: Path) -> None:
    outcomes = _inner_pytest(patched_tree, tmp_path, str(INNER), str(EQUIVALENCE))
    assert outcomes and set(outcomes.values()) == {"passed"}, {k: v for k, v in outcomes.items() if v != "passed"}
    names = {key.rsplit("::", 1)[1].split("[", 1)[0] for key in outcomes}
    assert set(FEATURE_TESTS) <= names
    assert "test_lifecycle_matches_base_spec_worker" in names


@pytest.mark.sglang_runtime
def test_behaviour_tests_fail_inside_an_unpatched_sglang(installed: SglangSource, tmp_path: Path) -> None:
    """Not vacuous: without the series, each feature test fails."""
    tree = mirror_installed(installed, tmp_path / "unpatched", patched=False)
    outcomes = _inner_pytest(tree, tmp_path, *(f"{INNER}::{name}" for name in FEATURE_TESTS))
    assert len(outcomes) == len(FEATURE_TESTS)
    assert set(outcomes.values()) == {"failure"}, outcomes


# -- the gate on the patched tree -----------------------------------------------------------


# -- pp_proxy_tensors, statically -----------------------------------------------------------

