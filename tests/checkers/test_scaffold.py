"""``write_skeleton``: file naming, refusals, and skeletons that conform as generated.

The generated modules are checked four ways: the source itself (AST), the
runtime checker, mypy --strict plus pyright strict (marked ``checkers``), and
the gate (marked ``checkers``; skipped until ``spec_protocols.gate._pipeline`` exists).

This module is the part that runs mypy or pyright; tests/unit/test_scaffold.py (fast, no checker) holds the rest.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from spec_protocols.gate._scaffold import write_skeleton
from spec_protocols.gate import run_gate

from tests._paths import REPO_ROOT


REPO = REPO_ROOT


# -- static checkers and the gate --------------------------------------------

# mypy --strict, plus one allowance for sglang itself: it ships no py.typed and
# re-exports names by plain import (GenerationBatchResult in managers.utils),
# which strict mode's no_implicit_reexport rejects in *sglang's* modules.
_MYPY_INI = f"""\
[mypy]
python_version = 3.11
strict = True
mypy_path = {REPO / "stubs"}
follow_untyped_imports = True
warn_unused_ignores = True

[mypy-sglang.*]
implicit_reexport = True
"""

_PYRIGHT_JSON = f"""\
{{"stubPath": "{REPO / "stubs"}", "pythonVersion": "3.11", "typeCheckingMode": "strict",
 "reportMissingTypeStubs": false}}
"""
def test_skeletons_pass_mypy_strict_and_pyright_strict(tmp_path: Path) -> None:
    files = [str(write_skeleton("worker", "MyWorker", tmp_path)), str(write_skeleton("draft", "MyDraft", tmp_path))]
    (tmp_path / "mypy.ini").write_text(_MYPY_INI)
    (tmp_path / "pyrightconfig.json").write_text(_PYRIGHT_JSON)
    bindir = Path(sys.executable).parent
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", str(tmp_path / ".mypy"), *files],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    pyright = subprocess.run(
        [str(bindir / "pyright"), "--pythonpath", sys.executable, "--project", str(tmp_path), *files],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert pyright.returncode == 0, pyright.stdout + pyright.stderr
    assert "0 errors" in pyright.stdout
@pytest.mark.parametrize(("kind", "name", "protocol"), [("worker", "MyWorker", "SpecWorker"), ("draft", "MyDraft", "DraftWorker")])
def test_skeleton_passes_the_gate_as_generated(kind: Any, name: str, protocol: str, tmp_path: Path) -> None:
    path = write_skeleton(kind, name, tmp_path)
    report = run_gate([str(path)])
    checked = {(r.check.target.rsplit(".", 1)[-1], r.check.protocol): r for r in report.results}
    assert (name, protocol) in checked, sorted(checked)
    failing = [r for r in report.results if r.verdict.value != "pass"]
    assert not failing, failing
