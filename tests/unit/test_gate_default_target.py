"""The embedded default of `spec-protocols check` with no TARGET.

This module is the fast part; tests/checkers/test_gate_default_target.py (runs mypy or pyright) holds the rest.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from spec_protocols.gate import _pipeline as api
from spec_protocols.gate._pipeline import DEFAULT_TARGET, REFERENCE_TARGET, default_targets


def test_default_is_the_installed_sglang_speculative_package() -> None:
    # default_targets() looks sglang up without importing it, so sglang's
    # source is all this needs: importorskip would import sglang, which fails
    # on numpy where its source is installed without its dependencies (the
    # fast tier's venv), and skip with this reason, wrongly.
    if importlib.util.find_spec("sglang") is None:
        pytest.skip("sglang's source is not installed in this environment")
    assert default_targets() == [DEFAULT_TARGET]


def test_without_sglang_the_default_is_the_reference_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    real = api.find_module_file

    def no_sglang(name: str, path: list[str]) -> Path | None:
        return None if name.startswith("sglang") else real(name, path)

    monkeypatch.setattr(api, "find_module_file", no_sglang)
    assert default_targets() == [REFERENCE_TARGET]
