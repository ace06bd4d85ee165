"""The library itself is clean under mypy --strict and pyright strict.

Both run with the repository's own configuration (``mypy.ini``,
``pyrightconfig.json``): the whole ``spec_protocols`` package, checked against
the sglang stubs in ``stubs/``, must report 0 errors. Each checker runs once, in
a subprocess, from the repository root, through the gate's own adapters.
"""

from __future__ import annotations

import json
import sys

from spec_protocols.gate._checkers._mypy import invoke_mypy
from spec_protocols.gate._checkers._pyright import invoke_pyright

from tests._paths import REPO_ROOT


ROOT = REPO_ROOT


def test_mypy_strict_reports_no_errors() -> None:
    run = invoke_mypy([], config=ROOT / "mypy.ini", cwd=ROOT, timeout=600, extra_args=["--no-incremental"])
    described = "\n".join(f"{d.file}:{d.line}: {d.message} [{d.code}]" for d in run.errors())
    assert run.returncode == 0 and not run.errors(), described + run.stderr


def test_pyright_strict_reports_no_errors() -> None:
    run = invoke_pyright(ROOT / "pyrightconfig.json", cwd=ROOT, timeout=600, extra_args=["--pythonpath", sys.executable])
    described = "\n".join(f"{d.file}:{d.line}: {d.message} ({d.code})" for d in run.errors())
    assert run.errors() == [], described
    assert json.loads(run.stdout)["summary"]["filesAnalyzed"] > 0
