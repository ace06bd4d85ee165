"""Shared pytest fixtures. Keep this file small; helpers live in their own modules."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (the folder holding ``pyproject.toml``)."""
    return REPO_ROOT
