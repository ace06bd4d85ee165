"""mypy run once: its dialect, its configuration, its invocation and its JSON output.

mypy is told to read from source exactly the modules that define the classes
under check and their bases (``follow_imports = silent``: analysed, errors
not shown), the stubs through the overlay, and to skip everything else
(``follow_imports = skip``: ``Any``). Without that, it analyses sglang's whole
import graph: measured 21 s cold on a minimal install and 55-58 s on a full
one. Anything the skip turns into ``Any`` that matters shows up as an
``unverified`` canary, never as a pass. Modules holding injection sites are
checked (their shadows; see :mod:`spec_protocols.gate._harness._sites`). Its
cache lives in the gate's cache directory and is reused between runs.

:func:`invoke_mypy` is the raw adapter (a command line in, diagnostics out);
the test suite and the benchmarks run mypy through it too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import metadata
from pathlib import Path

from spec_protocols._releases import pin_constants
from spec_protocols.gate._checkers._dialect import Dialect, Said
from spec_protocols.gate._checkers._process import Invocation, Reported, crash, run_command
from spec_protocols.gate._harness import SITE_FUNCTION, CheckInput, StaticInput, mypy_view
from spec_protocols.gate._model import GateError
from spec_protocols.gate._paths import cache_dir

__all__ = ["DIALECT", "invoke", "invoke_mypy", "mypy_config", "mypy_invocation", "pin_settings", "version"]

#: What mypy's codes and words mean (see :class:`~spec_protocols.gate._checkers._dialect.Dialect`).
DIALECT = Dialect(
    abstract=Said(frozenset({"abstract"}), re.compile("abstract class")),
    missing=Said(frozenset({"attr-defined"}), re.compile("has no attribute")),
    import_error=Said(
        frozenset({"import", "import-not-found", "import-untyped"}),
        re.compile(r'Cannot find implementation or library stub|^Module ".*" has no attribute'),
    ),
    override=Said(
        frozenset({"override"}),
        re.compile(r"\bbase class\b|[Cc]annot override|incorrectly overrides|overrides symbol of same name"),
    ),
    assignment=Said(frozenset({"assignment"})),
    call_words=re.compile(r"Unexpected keyword argument|Too many (?:positional )?arguments|Too few arguments|Missing (?:positional|named) argument"),
    # A class decorator's application is reported at the class statement.
    decorator_application=Said(frozenset({"type-var", "arg-type"})),
    # method-assign: an instance attribute stored over a method (``self.step = self._fast``)
    # is what the instance has; whether it takes sglang's call is the replay's to see.
    hygiene=Said(frozenset({"var-annotated", "annotation-unchecked", "method-assign"})),
    no_attribute=re.compile(r'^(?:Item )?"(?P<owner>[\w.]+)"(?: of ".*")? has no attribute'),
    headlines=(
        re.compile(r'^Incompatible types in assignment \(expression has type "(?P<read>.*)", variable has type ".*"\)$'),
        re.compile(r'^Argument 1 to ".*" has incompatible type "(?P<read>.*)"; expected ".*"$'),
    ),
    site_builds=re.compile(
        rf'(?:Value of type variable "_W" of "{SITE_FUNCTION}_\d+" cannot be|Argument 1 to "{SITE_FUNCTION}_\d+" has '
        r'incompatible type) "(?P<built>.*?)"'
    ),
    # 'Cannot instantiate abstract class "W" with abstract attributes "a", "b", ... and "g" (4 methods suppressed)'
    abstract_names=re.compile(r"with abstract attributes? (?P<names>.*?)(?: \(\d+ methods? suppressed\))?$"),
    abstract_more=re.compile(r"\((?P<more>\d+) methods? suppressed\)$"),
    line_silence=re.compile(r"#\s*type:\s*ignore"),
    directive=re.compile(r"#\s*(type:\s*ignore|mypy:)"),
)


def invoke_mypy(
    files: Sequence[Path], *, config: Path, cwd: Path, timeout: float, extra_args: Sequence[str] = ()
) -> Invocation:
    """Run this interpreter's mypy on ``files`` with ``config``; its JSON output, parsed.

    A missing mypy, a crash (exit 2 or output that is not JSON) or a timeout
    raises :class:`GateError`.
    """
    argv = [sys.executable, "-m", "mypy", "--config-file", str(config), "--output", "json", *extra_args, *map(str, files)]
    start = time.perf_counter()
    proc = run_command("mypy", argv, cwd=cwd, timeout=timeout)
    seconds = time.perf_counter() - start
    if "No module named mypy" in proc.stderr:
        raise GateError("mypy is not installed: pip install 'spec-protocols[checkers]'")
    return mypy_invocation(proc, seconds)


def mypy_invocation(proc: subprocess.CompletedProcess[str], seconds: float, *, ignore: tuple[str, ...] = ()) -> Invocation:
    """mypy's ``--output json`` report in ``proc``, parsed; a crash raises :class:`GateError`.

    ``ignore``: prefixes of lines that are not mypy's report (the daemon's
    own status lines). The one judgement of a mypy process, for the one-shot
    checker and the watch mode's daemon alike."""
    diagnostics: list[Reported] = []
    reported = False
    for raw in proc.stdout.splitlines():
        raw = raw.strip()
        if not raw or (ignore and raw.startswith(ignore)):
            continue
        reported = True
        try:
            item = json.loads(raw)
        except json.JSONDecodeError:
            raise crash("mypy", proc, _first_reported(diagnostics)) from None
        diagnostics.append(
            Reported(
                str(item.get("file") or ""),
                int(item.get("line") or 0),
                int(item.get("column") or 0),
                str(item.get("severity") or ""),
                item.get("code"),
                str(item.get("message") or ""),
            )
        )
    errors = [d for d in diagnostics if d.severity == "error"]
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not errors and not reported):
        # Exit 2 with a report is a *blocking* error: mypy checked nothing
        # (a module that shadows the standard library, a syntax error in the
        # configuration, a duplicate module).
        raise crash("mypy", proc, _first_reported(diagnostics))
    return Invocation(proc.returncode, tuple(diagnostics), proc.stdout, proc.stderr, seconds)


def _first_reported(diagnostics: Sequence[Reported]) -> str | None:
    """mypy's first error in its own report, whole: ``FILE[:LINE]: MESSAGE``."""
    for item in diagnostics:
        if item.severity == "error":
            where = f"{item.file}:{item.line}" if item.line > 0 else item.file
            return f"{where}: {item.message}" if where else item.message
    return None


def _config(check_input: CheckInput, static: StaticInput) -> str:
    found = check_input.discovery
    shadow = static.shadow
    checked = sorted(shadow.files) if shadow is not None else []
    # mypy reads no site-packages: installed packages come from a view of
    # just those it must see (this package, the sglang checked against, the
    # installed packages under check; see _environment.py). The shadow of the
    # modules holding injection sites comes before their originals (see
    # _sites.py); the stubs come first of all. A namespace package's first
    # hit on mypy_path wins (sglang/srt has no __init__.py), so --sglang's
    # tree is the view's sglang, and nothing else on the path holds one.
    view = mypy_view(check_input.sglang_root, static.installed)
    paths = [
        str(static.overlay),
        *([str(shadow.root)] if shadow else []),
        *(str(p) for p in found.search_roots),
        str(view),
    ]
    helper = [shadow.helper] if shadow is not None else []
    # The plugin's modules that define checked classes are reported on too:
    # what mypy says at a checked class's own lines is its verdict (see
    # _static.class_diagnostics); the rest of those modules is a count.
    own = sorted(set(static.class_files) - set(checked))
    read = sorted({*found.source_modules, "spec_protocols", "spec_protocols.*", *static.stubbed, *helper} - set(checked) - set(own))
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
        *_pin_lines(check_input.terms.pin),
        "no_site_packages = True",
        "",
        f"[mypy-{','.join(read)}]",
        "follow_imports = silent",
        "",
    ]
    if own:
        lines += [f"[mypy-{','.join(own)}]", "follow_imports = normal", "check_untyped_defs = True", ""]
    if checked:
        # Modules holding injection sites are checked, bodies of unannotated
        # functions included (that is where plugins inject); only the
        # diagnostics inside a site's rewritten call are read.
        lines += [f"[mypy-{','.join(checked)}]", "follow_imports = normal", "check_untyped_defs = True", ""]
    return "\n".join(lines)


def mypy_config(check_input: CheckInput, static: StaticInput) -> str:
    """The text of the ``mypy.ini`` a run on ``check_input`` uses (the watch
    mode's daemon reads the same one, so its verdicts are a one-shot run's)."""
    return _config(check_input, static)


def pin_settings(constants: Mapping[str, bool], style: str) -> str:
    """mypy's settings that read the protocols' release constants as ``constants`` (``spec-protocols pin``)."""
    true = [n for n, v in constants.items() if v]
    false = [n for n, v in constants.items() if not v]
    if style == "pyproject":
        return f"[tool.mypy]\nalways_true = {json.dumps(true)}\nalways_false = {json.dumps(false)}\n"
    return f"# mypy.ini (or setup.cfg), in the [mypy] section:\nalways_true = {','.join(true)}\nalways_false = {','.join(false)}\n"


def _pin_lines(pin: str | None) -> list[str]:
    """The protocols' release branches, evaluated for the release checked."""
    if pin is None:
        return []
    constants = pin_constants(pin)
    return [
        f"always_true = {','.join(n for n, v in constants.items() if v)}",
        f"always_false = {','.join(n for n, v in constants.items() if not v)}",
    ]


def invoke(check_input: CheckInput, static: StaticInput) -> Invocation:
    """mypy on the harness (and the shadows of injection sites), with the run's configuration."""
    config = static.workdir / "mypy.ini"
    config.write_text(_config(check_input, static), encoding="utf-8")
    return invoke_mypy([static.harness_file], config=config, cwd=static.workdir, timeout=check_input.timeout)


@cache
def version() -> tuple[str, bool]:
    # The gate runs `sys.executable -m mypy`: the mypy installed beside it.
    try:
        return metadata.version("mypy"), True
    except metadata.PackageNotFoundError:
        return "not installed", True
