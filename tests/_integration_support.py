"""What the sglang integration series tests share (tests/unit/, tests/slow/ and
tests/checkers/test_integration_sglang.py): the release the series is for, its
patches and the files they touch, and the fixtures that find pristine and
installed sglang trees and apply the series to them.

What the three test modules prove together, on the pristine files of the sglang 0.5.23 wheel (the
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

The fixtures are imported into each test module that uses them (pytest finds
them in its namespace), together with the fixtures they request; all are
module-scoped, so each importing module gets its own. ``pristine`` requests
``sglang_release`` from tests/conftest.py. Nothing here starts a checker or
imports sglang.
"""

from __future__ import annotations

import os
import shutil
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

RELEASE = "0.5.23"
PATCHES = series("sglang", RELEASE)
TOUCHED = touched_files(PATCHES)


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


def mirror_installed(installed: SglangSource, dest: Path, *, patched: bool) -> Path:
    """A mirror of the installed sglang package under ``dest``, the series applied if ``patched``."""
    tree = mirror(installed.root / "sglang", dest)
    if patched:
        apply_series(tree, PATCHES)
    return tree


@pytest.fixture(scope="module")
def patched_tree(installed: SglangSource, needs_patch: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror of the installed sglang with the series applied."""
    return mirror_installed(installed, tmp_path_factory.mktemp("patched"), patched=True)


def env_with(tree: Path, **extra: str) -> dict[str, str]:
    """This environment with ``tree`` first on PYTHONPATH."""
    path = os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**os.environ, "PYTHONPATH": path, **extra}
