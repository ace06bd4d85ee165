"""The pyright adapter: configuration, invocation, and its ``--outputjson``.

pyright runs on the static view (see :mod:`spec_protocols.gate._environment`)
with the stub overlay as ``stubPath``, in ``standard`` mode, with pyright's
own default ``analyzeUnannotatedFunctions`` on. It was off once (inferring
sglang's unannotated bodies cost most of the time before the skip stubs); off,
pyright infers nothing from an unannotated function, so an untyped registry
decorator (``@register("algo")``, returning the class unchanged) turned the
class it decorates into ``Unknown``, and an injection inside an unannotated
``__init__`` was never checked. Measured on sglang 0.5.23's 14 checks since:
about 3.6 s off, 4.3 s on.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from spec_protocols.gate._checkers._interpret import Diagnostic, StaticRun, interpret, last_output_line, run_command
from spec_protocols.gate._environment import static_view
from spec_protocols.gate._model import CheckerOutcome, GateError
from spec_protocols.gate._sites import is_canary

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
    shadow = run.shadow
    # The shadow of the modules holding injection sites is searched first and
    # checked (pyright reports diagnostics only for included files).
    # (pyright takes only paths relative to its configuration file in "include".)
    checked = [os.path.relpath(f, run.workdir) for _, f in sorted(shadow.files.items())] if shadow is not None else []
    config = {
        "include": [run.harness_file.name, *checked],
        "venvPath": str(view.parent),
        "venv": view.name,
        "extraPaths": [*([str(shadow.root)] if shadow is not None else []), *(str(p) for p in run.search_roots)],
        "stubPath": str(run.overlay),
        "pythonVersion": f"{sys.version_info.major}.{sys.version_info.minor}",
        "typeCheckingMode": "standard",
        "analyzeUnannotatedFunctions": True,
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
        if item.get("severity") != "error":
            continue
        line = int(item["range"]["start"]["line"]) + 1
        message = str(item.get("message", ""))
        if Path(item.get("file", "")).resolve() == harness:
            diagnostics.append(Diagnostic(line, message, item.get("rule")))
            continue
        if shadow is not None:
            # An error inside a site's rewritten call belongs to that site.
            column = int(item["range"]["start"]["character"])
            number = shadow.site_at(Path(item.get("file", "")), line, column)
            if number is not None:
                diagnostics.append(Diagnostic(line, message, item.get("rule"), site=(number, is_canary(message))))
    return interpret(NAME, run.harness, diagnostics, seconds=seconds, shadow=shadow)
