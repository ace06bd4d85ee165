"""The pyright adapter: configuration, invocation, and its ``--outputjson``.

pyright runs on the static view (see :mod:`spec_protocols.gate.environment`)
with the stub overlay as ``stubPath``, in ``standard`` mode, and with
``analyzeUnannotatedFunctions`` off: sglang's unannotated bodies are not what
the gate checks, and inferring them cost most of the time (measured 12.5 s ->
7.5 s for two workers). Signatures of unannotated functions are still compared.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from spec_protocols.gate.checkers.base import Diagnostic, StaticRun, interpret, last_output_line, run_command
from spec_protocols.gate.environment import static_view
from spec_protocols.gate.model import CheckerOutcome, GateError

__all__ = ["find_pyright", "run_pyright"]

NAME = "pyright"


def find_pyright() -> str:
    """The pyright executable next to this interpreter, else on PATH."""
    here = Path(sys.executable).parent
    found = shutil.which("pyright", path=os.pathsep.join([str(here), os.environ.get("PATH", "")]))
    if found is None:
        raise GateError("pyright is not installed: pip install 'spec-protocols[checkers]'")
    return found


def run_pyright(run: StaticRun) -> CheckerOutcome:
    view = static_view()
    config = {
        "include": [run.harness_file.name],
        "venvPath": str(view.parent),
        "venv": view.name,
        "extraPaths": [str(p) for p in run.search_roots],
        "stubPath": str(run.overlay),
        "pythonVersion": f"{sys.version_info.major}.{sys.version_info.minor}",
        "typeCheckingMode": "standard",
        "analyzeUnannotatedFunctions": False,
        "reportMissingModuleSource": "none",
    }
    (run.workdir / "pyrightconfig.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    argv = [find_pyright(), "--outputjson", "-p", str(run.workdir / "pyrightconfig.json")]
    start = time.perf_counter()
    proc = run_command(NAME, argv, cwd=run.workdir, timeout=run.timeout)
    seconds = time.perf_counter() - start
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise GateError(f"pyright crashed (exit {proc.returncode}): {last_output_line(proc)}") from None
    if proc.returncode not in (0, 1):
        raise GateError(f"pyright failed (exit {proc.returncode}): check its configuration")
    harness = run.harness_file.resolve()
    diagnostics: list[Diagnostic] = []
    for item in data.get("generalDiagnostics", []):
        if item.get("severity") != "error" or Path(item.get("file", "")).resolve() != harness:
            continue
        line = int(item["range"]["start"]["line"]) + 1
        diagnostics.append(Diagnostic(line, str(item.get("message", "")), item.get("rule")))
    return interpret(NAME, run.harness, diagnostics, seconds=seconds)
