"""The ty checker (experimental): configuration, invocation, and its GitLab-format JSON.

ty reads the harness as the other static checkers do: the injection sites'
shadows first on its search path, the plugin's own folders, and a view of
site-packages as its Python environment. The stub overlay is there as a
partial stub package (``sglang-stubs``, its ``py.typed`` saying ``partial``):
given as a folder on the search path, a package found there hides every
module of the same package that it lacks (the modules read from source). Chosen by
name only (``--checker ty``): never a default, because two things it does
not do make its column weaker than mypy's and pyright's, and docs/agreement.md
measures how often it agrees with them on the shapes corpus:

* it has no way to define a constant for a checked file, so the protocols'
  release branches (``if not (SGLANG_0_5_19 or ...)``) read as the newest
  release whatever release is checked (mypy's ``always_true``, pyright's
  ``defineConstant`` pin them);
* its messages are one line each: a finding carries its headline, not the
  nested reasons pyright gives, so its words never lead (its rank is last).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import time
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from spec_protocols.gate._checkers._dialect import Dialect, Said
from spec_protocols.gate._checkers._process import Invocation, Reported, crash, executable, first_error_line, run_command
from spec_protocols.gate._checkers._registry import CheckerName
from spec_protocols.gate._checkers._static_checker import StaticChecker
from spec_protocols.gate._harness import SITE_FUNCTION, CheckInput, StaticInput, static_view
from spec_protocols.gate._paths import cache_dir

__all__ = ["CHECKER", "DIALECT", "invoke_ty"]

#: What ty's rules and words mean (see :class:`~spec_protocols.gate._checkers._dialect.Dialect`).
DIALECT = Dialect(
    abstract=Said(frozenset({"abstract-class-instantiation"}), re.compile(r"Cannot instantiate `.*` with unimplemented abstract")),
    missing=Said(frozenset({"missing-attribute", "unresolved-attribute"}), re.compile(r"has no attribute")),
    import_error=Said(
        frozenset({"unresolved-import", "import-not-found", "possibly-missing-import"}),
        re.compile(r"Cannot resolve imported module|Module `.*` has no member"),
    ),
    override=Said(frozenset({"invalid-method-override", "invalid-attribute-override", "override-of-final-method"})),
    assignment=Said(frozenset({"invalid-assignment"})),
    call_words=re.compile(r"No parameter named|Too many positional|[Mm]issing (?:required )?(?:keyword )?argument|unknown-argument|missing-argument"),
    decorator_application=Said(frozenset({"invalid-argument-type"})),
    no_attribute=re.compile(r"Object of type `(?P<owner>[\w.\[\]]+)` has no attribute"),
    headlines=(
        re.compile(r"^Object of type `(?P<read>.*)` is not assignable to `.*`$"),
        re.compile(r"^Argument to \w+ `.*` is incorrect: Expected `.*`, found `(?P<read>.*)`$"),
    ),
    site_builds=re.compile(
        rf"Argument to function `{SITE_FUNCTION}_\d+` is incorrect: (?:Argument type|Expected `.*`, found) `(?P<built>.*?)`"
    ),
    # 'Cannot instantiate `W` with 7 unimplemented abstract methods, including `a`, `b` and `c`'
    abstract_names=re.compile(r"unimplemented abstract methods?(?:, including)? (?P<names>.*)$"),
    abstract_more=re.compile(r"with (?P<total>\d+) unimplemented abstract methods"),
    line_silence=re.compile(r"#\s*(type:\s*ignore|ty:\s*ignore)"),
    directive=re.compile(r"#\s*(type:\s*ignore|ty:)"),
)

#: GitLab Code Quality severities that stand for an error.
_ERRORS = frozenset({"major", "critical", "blocker"})


def find_ty() -> str:
    """The ty executable next to this interpreter, else on PATH."""
    return executable("ty", "pip install 'spec-protocols[ty]'")


def invoke_ty(files: list[Path], *, cwd: Path, timeout: float, python: Path, search: list[Path]) -> Invocation:
    """Run ty on ``files`` (its Python environment ``python``, ``search`` first
    on its module search path); its report, parsed. A missing ty, output that
    is not its report, or an exit status it gives for no verdict raises
    :class:`GateError`."""
    argv = [find_ty(), "check", "--output-format", "gitlab", "--no-progress", "--python", str(python)]
    argv += ["--python-version", f"{sys.version_info.major}.{sys.version_info.minor}"]
    for folder in search:
        argv += ["--extra-search-path", str(folder)]
    argv += [str(f) for f in files]
    start = time.perf_counter()
    proc = run_command("ty", argv, cwd=cwd, timeout=timeout)
    seconds = time.perf_counter() - start
    try:
        data: object = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise crash("ty", proc) from None
    if proc.returncode not in (0, 1) or not isinstance(data, list):
        raise crash("ty", proc, first_error_line(proc.stderr) or "its report holds no diagnostic list")
    return Invocation(proc.returncode, tuple(_reported(item) for item in cast(list[object], data)), proc.stdout, proc.stderr, seconds)


def _reported(item: object) -> Reported:
    entry = cast(dict[str, Any], item)
    location = cast(dict[str, Any], entry.get("location") or {})
    positions = cast(dict[str, Any], location.get("positions") or {})
    begin = cast(dict[str, Any], positions.get("begin") or {})
    code = str(entry.get("check_name") or "") or None
    description = str(entry.get("description") or "")
    message = description.removeprefix(f"{code}: ") if code else description
    severity = "error" if entry.get("severity") in _ERRORS else "warning"
    return Reported(str(location.get("path") or ""), int(begin.get("line") or 0), max(0, int(begin.get("column") or 1) - 1), severity, code, message)


def _invoke(check_input: CheckInput, static: StaticInput) -> Invocation:
    """ty on the harness, the shadows of injection sites and the plugin's modules that define checked classes."""
    shadow = static.shadow
    files = [static.harness_file]
    files += [f for _, f in sorted(shadow.files.items())] if shadow is not None else []
    shadowed = set(shadow.files) if shadow is not None else set[str]()
    files += [f for m, f in sorted(static.class_files.items()) if m not in shadowed]
    search = [*([shadow.root] if shadow is not None else []), *check_input.discovery.search_roots]
    view = _with_stubs(static_view(check_input.sglang_root, static.installed), static.overlay)
    return invoke_ty(files, cwd=static.workdir, timeout=check_input.timeout, python=view, search=search)


def _with_stubs(view: Path, overlay: Path) -> Path:
    """``view`` (a virtual environment) with the overlay's stubs as the partial stub package ``sglang-stubs``."""
    digest = hashlib.sha256(f"{view}\0{overlay}".encode()).hexdigest()[:16]
    root = cache_dir() / "ty-view" / digest
    if (root / ".complete").exists():
        return root
    building = root.with_name(f"{digest}.tmp{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    site_of = Path("lib") / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    site = building / site_of
    site.mkdir(parents=True)
    shutil.copy(view / "pyvenv.cfg", building / "pyvenv.cfg")
    for entry in (view / site_of).iterdir():
        (site / entry.name).symlink_to(entry.resolve())
    if (overlay / "sglang").is_dir():
        (site / "sglang-stubs").symlink_to(overlay / "sglang")
    (building / ".complete").write_text("")
    try:
        building.rename(root)
    except OSError:  # another run built it first
        shutil.rmtree(building, ignore_errors=True)
    return root


@cache
def _version() -> tuple[str, bool]:
    try:
        return metadata.version("ty"), True
    except metadata.PackageNotFoundError:
        return "not installed", False


#: The ty checker: experimental, never a default; its words lead last.
CHECKER = StaticChecker(CheckerName.TY, CheckerName.TY, 4, DIALECT, _version, _invoke)
