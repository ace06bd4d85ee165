"""pyright run once: its dialect, its configuration, its invocation and its ``--outputjson``.

pyright runs on the static view (see :mod:`spec_protocols.gate._harness._environment`)
with the stub overlay as ``stubPath``, in ``standard`` mode, with pyright's
own default ``analyzeUnannotatedFunctions`` on. It was off once (inferring
sglang's unannotated bodies cost most of the time before the skip stubs); off,
pyright infers nothing from an unannotated function, so an untyped registry
decorator (``@register("algo")``, returning the class unchanged) turned the
class it decorates into ``Unknown``, and an injection inside an unannotated
``__init__`` was never checked. Measured on sglang 0.5.23's 14 checks since:
about 3.6 s off, 4.3 s on.

:func:`invoke_pyright` is the raw adapter (a configuration in, diagnostics
out); the test suite and the benchmarks run pyright through it too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from spec_protocols._releases import pin_constants
from spec_protocols.gate._checkers._dialect import Dialect, Said
from spec_protocols.gate._checkers._process import Invocation, Reported, crash, executable, first_error_line, run_command
from spec_protocols.gate._harness import CheckInput, StaticInput, static_view
from spec_protocols.gate._model import GateError

__all__ = ["DIALECT", "find_pyright", "invoke", "invoke_pyright", "pin_settings", "pyright_config", "version"]

#: What pyright's rules and words mean (see :class:`~spec_protocols.gate._checkers._dialect.Dialect`).
#: pyright nests its reasons under a headline and names each member of a
#: protocol it compares; mypy says it in one line.
DIALECT = Dialect(
    abstract=Said(frozenset({"reportAbstractUsage"}), re.compile("abstract class")),
    missing=Said(frozenset({"reportAttributeAccessIssue"}), re.compile("Cannot access attribute")),
    import_error=Said(
        frozenset({"reportMissingImports", "reportMissingModuleSource"}),
        re.compile(r"could not be resolved|is unknown import symbol|is not a known attribute of module"),
    ),
    override=Said(
        frozenset({"reportIncompatibleMethodOverride", "reportIncompatibleVariableOverride"}),
        re.compile(r"\bbase class\b|[Cc]annot override|incorrectly overrides|overrides symbol of same name"),
    ),
    assignment=Said(frozenset({"reportAssignmentType"})),
    # A value it could not infer ("Unknown") is its blind spot, never the class's problem.
    hygiene=Said(words=re.compile(r'of type "Unknown"')),
    call_words=re.compile(
        r"(?:Missing|Extra) (?:keyword )?parameter|Keyword parameter .* is missing|Parameter .* is missing|Position-only parameter"
        r"|[Pp]ositional parameter count|Too many positional|No parameter named|Argument missing for parameter|has no default value"
        r"|is missing default argument"
        r"|Parameter name mismatch|Expected \d+ positional"
    ),
    no_attribute=re.compile(r'Cannot access attribute ".*" for class "(?P<owner>[\w.]+)\*?"'),
    headlines=(
        re.compile(r'^Type "(?P<read>.*)" is not assignable to (?:declared )?type ".*"$'),
        re.compile(r'^Argument of type "(?P<read>.*)" cannot be assigned to parameter ".*" of type ".*" in function ".*"$'),
    ),
    protocol_wrapper=re.compile(r'^".*" is incompatible with protocol ".*"$'),
    member_header=re.compile(r'^"(?P<member>\w+)" (?P<what>is not present|is an incompatible type|is invariant.*|is not a .*)$'),
    site_builds=re.compile(r'Argument of type "(?P<built>.*?)"'),
    # 'Cannot instantiate abstract class "W"', then a line per member ('"Base.a" is not implemented'), then 'and 5 more...'
    abstract_names=re.compile(r'^"(?P<names>[^"]+)" is not implemented$'),
    abstract_more=re.compile(r"^and (?P<more>\d+) more"),
    line_silence=re.compile(r"#\s*(type:\s*ignore|pyright:\s*ignore)"),
    directive=re.compile(r"#\s*(type:\s*ignore|pyright:)"),
)


def find_pyright() -> str:
    """The pyright executable next to this interpreter, else on PATH."""
    return executable("pyright", "pip install 'spec-protocols[checkers]'")


def invoke_pyright(
    config: Path, *, cwd: Path, timeout: float, files: Sequence[Path] = (), extra_args: Sequence[str] = ()
) -> Invocation:
    """Run pyright with the project file ``config`` (and ``files``, if given); its JSON output, parsed.

    A missing pyright, output that is not JSON, or an exit status other than
    0 (clean) or 1 (errors found) raises :class:`GateError`.
    """
    argv = [find_pyright(), "--outputjson", "-p", str(config), *extra_args, *map(str, files)]
    start = time.perf_counter()
    proc = run_command("pyright", argv, cwd=cwd, timeout=timeout)
    seconds = time.perf_counter() - start
    try:
        data: dict[str, Any] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise crash("pyright", proc) from None
    if proc.returncode not in (0, 1):
        # A report with an exit status pyright gives for no verdict: its
        # configuration was rejected (3) or it stopped early.
        raise crash("pyright", proc, _first_error(data) or first_error_line(proc.stderr) or "its report holds no error")
    diagnostics = tuple(
        Reported(
            str(item.get("file", "")),
            int(item["range"]["start"]["line"]) + 1,
            int(item["range"]["start"]["character"]),
            str(item.get("severity", "")),
            item.get("rule"),
            str(item.get("message", "")),
        )
        for item in data.get("generalDiagnostics", [])
    )
    return Invocation(proc.returncode, diagnostics, proc.stdout, proc.stderr, seconds)


def _first_error(data: dict[str, Any]) -> str | None:
    """pyright's first error in its own report, whole."""
    items: list[Any] = list(data.get("generalDiagnostics") or [])
    for item in items:
        if isinstance(item, dict):
            entry = cast(dict[str, Any], item)
            if entry.get("severity") == "error":
                where, message = str(entry.get("file") or ""), str(entry.get("message") or "")
                return f"{where}: {message}" if where else message
    return None


def invoke(check_input: CheckInput, static: StaticInput) -> Invocation:
    """pyright on the harness (and the shadows of injection sites), with the run's configuration."""
    config_file = static.workdir / "pyrightconfig.json"
    config_file.write_text(json.dumps(_config(check_input, static), indent=2), encoding="utf-8")
    return invoke_pyright(config_file, cwd=static.workdir, timeout=check_input.timeout)


def _config(check_input: CheckInput, static: StaticInput) -> dict[str, object]:
    view = static_view(check_input.sglang_root, static.installed)
    shadow = static.shadow
    # The shadow of the modules holding injection sites is searched first
    # and checked (pyright reports diagnostics only for included files,
    # and takes only paths relative to its configuration file there).
    checked = [os.path.relpath(f, static.workdir) for _, f in sorted(shadow.files.items())] if shadow else []
    # The plugin's modules that define checked classes (their shadows, where
    # they hold a site): what pyright says at a checked class's own lines is
    # its verdict (see _static.class_diagnostics).
    shadowed = set(shadow.files) if shadow else set[str]()
    checked += [os.path.relpath(f, static.workdir) for m, f in static.class_files.items() if m not in shadowed]
    config: dict[str, object] = {
        "include": [static.harness_file.name, *checked],
        "venvPath": str(view.parent),
        "venv": view.name,
        "extraPaths": [*([str(shadow.root)] if shadow else []), *(str(p) for p in check_input.discovery.search_roots)],
        "stubPath": str(static.overlay),
        "pythonVersion": f"{sys.version_info.major}.{sys.version_info.minor}",
        "typeCheckingMode": "standard",
        "analyzeUnannotatedFunctions": True,
        "reportMissingModuleSource": "none",
    }
    if check_input.terms.pin is not None:
        # The protocols' release branches, evaluated for the release checked.
        config["defineConstant"] = pin_constants(check_input.terms.pin)
    return config


def pin_settings(constants: Mapping[str, bool], style: str) -> str:
    """pyright's settings that read the protocols' release constants as ``constants`` (``spec-protocols pin``)."""
    if style == "pyproject":
        define = ", ".join(f"{n} = {'true' if v else 'false'}" for n, v in constants.items())
        return f"[tool.pyright]\ndefineConstant = {{ {define} }}\n"
    return f'# pyrightconfig.json, at the top level:\n"defineConstant": {json.dumps(dict(constants))}\n'


def pyright_config(check_input: CheckInput, static: StaticInput) -> dict[str, object]:
    """The ``pyrightconfig.json`` a run on ``check_input`` uses (the watch
    mode's language server reads the same one, so its verdicts are a one-shot run's)."""
    return _config(check_input, static)


@cache
def version() -> tuple[str, bool]:
    # The pyright package on PyPI carries pyright's own version; when the
    # executable comes from elsewhere on PATH, ask it (no distribution decides it then).
    try:
        return metadata.version("pyright"), True
    except metadata.PackageNotFoundError:
        pass
    try:
        proc = subprocess.run([find_pyright(), "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (GateError, OSError, subprocess.TimeoutExpired):
        return "not installed", False
    return proc.stdout.strip().removeprefix("pyright ") or "unknown", False
