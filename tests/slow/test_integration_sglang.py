"""The sglang integration series drops in (issue 13): integrations/sglang/0.5.23/.

What is proved here, on the pristine files of the sglang 0.5.23 wheel (the
installed sglang when its files match the wheel's RECORD, else the wheel
fetched with ``pip download``):

* the series applies with ``patch -p1``, every hunk exactly where it says,
  and reverses to the same bytes;
* the patched sglang imports spec_protocols in ``base_spec_worker.py`` and
  ``draft_worker_common.py``, and no ``isinstance(..., BaseSpecWorker)`` is
  left in ``managers/``;
* the patched modules that import on CPU today still import;
* the behaviour tests in tests/slow/test_integration_sglang_patched.py and the
  lifecycle equivalence tests (tests/unit/test_base_equivalence.py) pass inside a
  patched sglang, and the behaviour tests fail inside an unpatched one;
* the gate passes the patched tree (runtime, mypy, pyright), and still fails
  every case of the broken-sglang corpus applied on top of it;
* Uno and frozen-KV MTP take ``pp_proxy_tensors``, as pyright sees them.

The patched tree is a mirror of the installed sglang (directories real, files
linked, the touched files copied first), put first on ``PYTHONPATH`` of a
subprocess: the installed package is never written, and this process never
imports sglang. The error counts before and after are a benchmark, not a
test: benchmarks/integration_errors.py.

This module is the slow part; tests/unit/test_integration_sglang.py (fast, no checker), tests/checkers/test_integration_sglang.py (runs mypy or pyright) hold the rest.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest

from integrations.series import (
    apply_series,
    mirror,
    modified_against_record,
    patch_tool,
    series,
    touched_files,
)
from spec_protocols.gate._contract import SglangSource, installed_source

from tests._paths import REPO_ROOT, TESTS

RELEASE = "0.5.23"
PATCHES = series("sglang", RELEASE)
TOUCHED = touched_files(PATCHES)
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
)

#: The modules the series touches, named from their files.
MODULES = tuple(name.removesuffix(".py").replace("/", ".") for name in TOUCHED)


# -- sources ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def needs_patch() -> str:
    tool = patch_tool()
    if tool is None:
        pytest.skip("GNU patch is not installed: the series is applied with patch -p1")
    return tool


@pytest.fixture(scope="module")
def pristine(sglang_release: Callable[[str], SglangSource]) -> Path:
    """The folder holding sglang 0.5.23 as its wheel ships it.

    The installed sglang when it is 0.5.23 and the files the series touches
    match the wheel's RECORD (scripts/setup installs it); else the wheel,
    fetched into the gate's cache.
    """
    source = installed_source()
    if source is not None and source.release == RELEASE:
        try:
            if not modified_against_record(source.root, "sglang", RELEASE, TOUCHED):
                return source.root
        except FileNotFoundError:
            pass
    return sglang_release(RELEASE).root


@pytest.fixture(scope="module")
def installed() -> SglangSource:
    """The installed sglang, which the runtime tests and the gate run on: 0.5.23, unmodified."""
    source = installed_source()
    if source is None:
        pytest.skip("sglang is not installed (scripts/setup installs 0.5.23)")
    if source.release != RELEASE:
        pytest.skip(f"the installed sglang is {source.release}; the series is for {RELEASE}")
    try:
        modified = modified_against_record(source.root, "sglang", RELEASE, TOUCHED)
    except FileNotFoundError:
        pytest.skip(f"the installed sglang has no sglang-{RELEASE}.dist-info/RECORD to compare with its wheel")
    assert not modified, f"the installed sglang {RELEASE} differs from its wheel in {modified}"
    return source


@pytest.fixture(scope="module")
def applied(pristine: Path, needs_patch: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the series touches, copied from the pristine release and patched."""
    root = tmp_path_factory.mktemp("applied")
    for name in TOUCHED:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pristine / name, root / name)
    apply_series(root, PATCHES)
    return root


def _mirror(installed: SglangSource, dest: Path, *, patched: bool) -> Path:
    tree = mirror(installed.root / "sglang", dest)
    if patched:
        apply_series(tree, PATCHES)
    return tree


@pytest.fixture(scope="module")
def patched_tree(installed: SglangSource, needs_patch: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror of the installed sglang with the series applied."""
    return _mirror(installed, tmp_path_factory.mktemp("patched"), patched=True)


def _env_with(tree: Path, **extra: str) -> dict[str, str]:
    """This environment with ``tree`` first on PYTHONPATH."""
    path = os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**os.environ, "PYTHONPATH": path, **extra}


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
    after = _import_probe(_env_with(patched_tree), tmp_path)
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
        env=_env_with(tree, SPEC_PROTOCOLS_PATCHED_SGLANG=str(tree)),
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
    tree = _mirror(installed, tmp_path / "unpatched", patched=False)
    outcomes = _inner_pytest(tree, tmp_path, *(f"{INNER}::{name}" for name in FEATURE_TESTS))
    assert len(outcomes) == len(FEATURE_TESTS)
    assert set(outcomes.values()) == {"failure"}, outcomes


# -- the gate on the patched tree -----------------------------------------------------------


# -- pp_proxy_tensors, statically -----------------------------------------------------------

