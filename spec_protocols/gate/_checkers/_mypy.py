"""The mypy adapter: configuration, invocation, and its JSON output.

mypy is told to read from source exactly the modules that define the classes
under check and their bases (``follow_imports = silent``: analysed, errors
not shown), the stubs through the overlay, and to skip everything else
(``follow_imports = skip``: ``Any``). Without that, it analyses sglang's whole
import graph: measured 21 s cold on a minimal install and 55-58 s on a full
one. Anything the skip turns into ``Any`` that matters shows up as an
``unverified`` canary, never as a pass. Its cache lives in the gate's cache
directory and is reused between runs.
"""

from __future__ import annotations

import json
import sys
import time

from spec_protocols.gate._checkers._interpret import Diagnostic, StaticRun, interpret, last_output_line, run_command
from spec_protocols.gate._environment import cache_dir, library_root
from spec_protocols.gate._model import CheckerOutcome, GateError
from spec_protocols.gate._sites import is_canary

__all__ = ["run_mypy"]

NAME = "mypy"


def _config(run: StaticRun, stubbed: frozenset[str]) -> str:
    checked = sorted(run.shadow.files) if run.shadow is not None else []
    # The shadow of the modules holding injection sites comes before their
    # originals (see sites.py); the stubs come first of all.
    shadow = [str(run.shadow.root)] if run.shadow is not None else []
    paths = [str(run.overlay), *shadow, *(str(p) for p in run.search_roots)]
    root = library_root()
    if "site-packages" not in root.parts and "dist-packages" not in root.parts:
        paths.append(str(root))  # a checkout (editable install); mypy finds an installed one itself
    helper = [run.shadow.helper] if run.shadow is not None else []
    read = sorted({*run.source_modules, "spec_protocols", "spec_protocols.*", *stubbed, *helper} - set(checked))
    lines = [
        "[mypy]",
        f"python_version = {sys.version_info.major}.{sys.version_info.minor}",
        f"mypy_path = {':'.join(dict.fromkeys(paths))}",
        f"cache_dir = {cache_dir() / 'mypy'}",
        "incremental = True",
        # sglang ships no py.typed: read its source rather than calling it Any.
        "follow_untyped_imports = True",
        "follow_imports = skip",
        "show_error_codes = True",
        "warn_unused_ignores = False",
        "",
        f"[mypy-{','.join(read)}]",
        "follow_imports = silent",
        "",
    ]
    if checked:
        # Modules holding injection sites are checked, bodies of unannotated
        # functions included (that is where plugins inject); only the
        # diagnostics naming a site helper are read.
        lines += [f"[mypy-{','.join(checked)}]", "follow_imports = normal", "check_untyped_defs = True", ""]
    return "\n".join(lines)


def run_mypy(run: StaticRun, stubbed: frozenset[str]) -> CheckerOutcome:
    config = run.workdir / "mypy.ini"
    config.write_text(_config(run, stubbed), encoding="utf-8")
    argv = [sys.executable, "-m", "mypy", "--config-file", str(config), "--output", "json", str(run.harness_file)]
    start = time.perf_counter()
    proc = run_command(NAME, argv, cwd=run.workdir, timeout=run.timeout)
    seconds = time.perf_counter() - start
    if "No module named mypy" in proc.stderr:
        raise GateError("mypy is not installed: pip install 'spec-protocols[checkers]'")
    diagnostics: list[Diagnostic] = []
    harness = run.harness_file.resolve()
    for raw in proc.stdout.splitlines():
        raw = raw.strip()
        if not raw:
            continue
        try:
            item = json.loads(raw)
        except json.JSONDecodeError:
            raise GateError(f"mypy crashed (exit {proc.returncode}): {last_output_line(proc)}") from None
        if item.get("severity") != "error":
            continue
        file = item.get("file") or ""
        message = str(item["message"])
        if file and ((run.workdir / file).resolve() == harness or file == str(run.harness_file)):
            diagnostics.append(Diagnostic(int(item["line"]), message, item.get("code")))
            continue
        if run.shadow is not None and file:
            # An error inside a site's rewritten call belongs to that site.
            line, column = int(item["line"]), int(item.get("column") or 0)
            number = run.shadow.site_at(run.workdir / file, line, column)
            if number is not None:
                diagnostics.append(Diagnostic(line, message, item.get("code"), site=(number, is_canary(message))))
        # Any other error inside an analysed module is not a verdict.
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not diagnostics and not proc.stdout.strip()):
        raise GateError(f"mypy crashed (exit {proc.returncode}): {last_output_line(proc)}")
    return interpret(NAME, run.harness, diagnostics, seconds=seconds, shadow=run.shadow)

