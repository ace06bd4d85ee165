"""Shared pytest fixtures, and the markers the suite's layout gives.

The folder a test module is in says what it costs (``-m`` selects by it):

* ``tests/unit/``: fast, and no static checker runs (its conftest.py fails a
  test that starts one); ``scripts/test --fast`` runs this folder only;
* ``tests/slow/``: marked ``slow`` (real sglang releases, patched trees);
* ``tests/checkers/``: marked ``checkers`` and ``slow`` (mypy, pyright, the
  gate with a static checker);
* ``tests/installed/``: marked ``installed``, ``slow`` and ``checkers``.

A marker that says what a test needs from its environment (``sglang_runtime``)
stays on the test. Keep this file small; helpers live in their own modules.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests._hidden_skips import install as refuse_hidden_skips
from tests._paths import REPO_ROOT, TESTS

if TYPE_CHECKING:
    from spec_protocols.gate._contract import SglangSource

#: The markers each folder gives its tests (pytest_collection_modifyitems).
LAYOUT_MARKERS: dict[str, tuple[str, ...]] = {
    "slow": ("slow",),
    "checkers": ("checkers", "slow"),
    "installed": ("installed", "slow", "checkers"),
}

# The suite runs the gate with its verdict cache off (this process and every
# subprocess inherit it): many tests replace a checker or part of one, which
# no cache key can see, and a test that expects a checker to run must see it
# run. test_verdict_cache.py (tests/slow/ and tests/checkers/) turns the
# cache on, under tmp_path, for the tests that are about it.
os.environ.setdefault("SPEC_PROTOCOLS_NO_CACHE", "1")


def layout_markers(path: Path) -> tuple[str, ...]:
    """The markers ``path``'s folder under ``tests/`` gives (none outside those folders)."""
    try:
        folder = path.resolve().relative_to(TESTS).parts[0]
    except (ValueError, IndexError):
        return ()
    return LAYOUT_MARKERS.get(folder, ())


def pytest_configure(config: pytest.Config) -> None:
    refuse_hidden_skips()  # no skip on an ImportError of spec_protocols (tests/_hidden_skips.py)


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for name in layout_markers(item.path):
            item.add_marker(name)


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures are set up
def pytest_runtest_setup(item: pytest.Item) -> None:
    # ``sglang_runtime`` says the test needs sglang's workers importable; in a
    # static-only set-up (SPEC_PROTOCOLS_NO_RUNTIME=1: CI's 3.12 and 3.13 runs)
    # it is skipped before its fixtures run, whatever they would import.
    if item.get_closest_marker("sglang_runtime") and importlib.util.find_spec("torch") is None:
        pytest.skip("needs sglang importable: torch is not installed (a static-only set-up)")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (the folder holding ``pyproject.toml``)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def sglang_release() -> Callable[[str], SglangSource]:
    """``sglang_release("0.5.21")``: that release's source, fetched once into the
    gate's own cache (``pip download --no-deps``; reused by later sessions), or
    a skip naming why it could not be fetched (no network, say)."""
    from spec_protocols.gate._contract import fetch_release
    from spec_protocols.gate._model import GateError

    fetched: dict[str, SglangSource] = {}

    def get(release: str) -> SglangSource:
        if release not in fetched:
            try:
                fetched[release] = fetch_release(release)
            except GateError as exc:
                pytest.skip(f"sglang {release} could not be fetched here: {exc}")
        return fetched[release]

    return get
