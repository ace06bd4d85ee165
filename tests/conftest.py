"""Shared pytest fixtures. Keep this file small; helpers live in their own modules."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from spec_protocols.gate._contract import SglangSource

REPO_ROOT = Path(__file__).resolve().parent.parent

# The suite runs the gate with its verdict cache off (this process and every
# subprocess inherit it): many tests replace a checker or part of one, which
# no cache key can see, and a test that expects a checker to run must see it
# run. tests/test_verdict_cache.py turns the cache on, under tmp_path, for
# the tests that are about it.
os.environ.setdefault("SPEC_PROTOCOLS_NO_CACHE", "1")


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
