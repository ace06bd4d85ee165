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
from pathlib import Path
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


def defines_getattr(root: Path, target: str) -> bool:
    """Whether class ``target`` ("sglang.srt....Class"), read from the tree
    under ``root`` (the folder holding ``sglang/``), defines ``__getattr__`` in
    its own body: a worker whose ``__getattr__`` may supply a member on the
    instance (DFlash, DSpark and Uno forward to their target worker), which
    neither static checker can follow, so a member missing from it is
    ``unverified`` there, never a pass."""
    import ast

    module, _, name = target.rpartition(".")
    path = root / (module.replace(".", "/") + ".py")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return any(isinstance(item, ast.FunctionDef) and item.name == "__getattr__" for item in node.body)
    raise AssertionError(f"class {target} not found in {path}")
