"""Importing sglang in tests: skip with the real reason when it cannot be imported.

Tests that need sglang 0.5.23 itself (not the stubs) are marked
``@pytest.mark.sglang_runtime`` and call :func:`import_sglang` for every module
they use. On a machine where the import fails (no torch, or a module that needs
CUDA or flashinfer) the test is skipped and the skip reason is the import
error, so ``pytest -ra`` shows exactly what was missing.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any

import pytest

# Imports that failed once fail again (and cost seconds): remember them.
_FAILED: dict[str, str] = {}


def import_sglang(module: str) -> ModuleType:
    """Import ``module`` (a dotted ``sglang...`` name) or skip the calling test, naming the error."""
    if module in _FAILED:
        pytest.skip(_FAILED[module])
    if importlib.util.find_spec("torch") is None:
        # A static-only set-up (SPEC_PROTOCOLS_NO_RUNTIME=1, as CI's 3.12 and
        # 3.13 runs): say so, rather than whichever import happened to fail.
        _FAILED[module] = f"cannot import {module}: torch is not installed (a static-only set-up)"
        pytest.skip(_FAILED[module])
    try:
        return importlib.import_module(module)
    except Exception as exc:  # ImportError, or e.g. an OSError from a missing libcuda
        first_line = (str(exc).strip().splitlines() or [""])[0]
        reason = f"cannot import {module} on this machine: {type(exc).__name__}: {first_line}"
        _FAILED[module] = reason
        pytest.skip(reason)


def sglang_class(module: str, name: str) -> Any:
    """``getattr(import_sglang(module), name)``; the class itself, untyped (sglang ships no types)."""
    return getattr(import_sglang(module), name)
