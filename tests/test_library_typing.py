"""The library itself is clean under mypy --strict and pyright strict.

Both run with the repository's own configuration (``mypy.ini``,
``pyrightconfig.json``): the whole ``spec_protocols`` package, checked against
the sglang stubs in ``stubs/``, must report 0 errors. Each checker runs once, in
a subprocess, from the repository root.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.checkers, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    """The checker installed beside this interpreter (the dev extra pins it)."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed; install the dev extra: pip install -e '.[dev]'")
    return found


def test_mypy_strict_reports_no_errors() -> None:
    run = subprocess.run(
        [tool("mypy"), "--config-file", str(ROOT / "mypy.ini"), "--no-incremental"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout


def test_pyright_strict_reports_no_errors() -> None:
    run = subprocess.run(
        [tool("pyright"), "-p", str(ROOT / "pyrightconfig.json"), "--pythonpath", sys.executable, "--outputjson"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"pyright produced no JSON report:\n{run.stdout}\n{run.stderr}")
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    described = "\n".join(
        f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']} ({d.get('rule', '')})" for d in errors
    )
    assert errors == [], described
    assert report["summary"]["filesAnalyzed"] > 0
