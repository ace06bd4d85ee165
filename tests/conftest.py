"""Shared pytest fixtures. Keep this file small; helpers live in their own modules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from spec_protocols.gate._contract import SglangSource

REPO_ROOT = Path(__file__).resolve().parent.parent


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
