"""Locating TARGETs on disk: which modules a target names, and where they live.

Nothing here imports a target. Modules are located with
``importlib.machinery.PathFinder`` (which only reads directories, never runs a
package's ``__init__``), and a package is walked the way the import system
would see it:

* every subfolder is a subpackage, with or without ``__init__.py``: since
  Python 3.3 a folder without one is a namespace package, importable below a
  regular package too;
* symbolic links to folders are followed, as the import system follows them
  (each real folder is walked once, so a link cycle ends);
* a ``.py`` file whose path is not made of identifiers (``my-helpers.py``,
  ``test data/x.py``) cannot be imported by name: it is left out with a note,
  never silently.

A package's files are only *located* here; :mod:`spec_protocols.gate._discovery._source_index`
reads them, and a file that cannot be parsed becomes a note there too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from spec_protocols.gate._model import GateError, ResolvedTarget
from spec_protocols.gate._paths import search_path
from spec_protocols.gate._source import find_module_file, is_module_name

__all__ = ["resolve_target"]

# Folders that never hold code the gate should check: caches and tool state.
_NEVER_WALKED = frozenset({"__pycache__", "node_modules"})


def _walk_python_files(root: Path) -> list[Path]:
    """Every ``.py`` file below ``root``, following links to folders, each real
    folder once, in a stable order."""
    found: list[Path] = []
    seen: set[str] = set()
    for current, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(current)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if d not in _NEVER_WALKED and not d.startswith("."))
        found.extend(Path(current) / f for f in sorted(files) if f.endswith(".py"))
    return sorted(found)


def _package_modules(name: str, init_file: Path) -> tuple[dict[str, Path], list[str]]:
    """Every module of a package, recursively, and a note for each file that
    cannot be imported by name. ``init_file`` is the package's ``__init__.py``,
    or its directory for a namespace package."""
    namespace = init_file.is_dir()
    root = init_file if namespace else init_file.parent
    found: dict[str, Path] = {} if namespace else {name: init_file}
    notes: list[str] = []
    for file in _walk_python_files(root):
        parts = list(file.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            if not parts:
                continue
        dotted = ".".join([name, *parts])
        if not is_module_name(dotted):
            notes.append(f"{file}: not checked: {dotted!r} is not an importable module name")
            continue
        found[dotted] = file
    return found, notes


def _module_name_for_file(file: Path) -> tuple[str, Path]:
    """Dotted name of a .py file and the directory it is importable from."""
    file = file.resolve()
    parts = [] if file.name == "__init__.py" else [file.stem]
    directory = file.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    if not parts:
        raise GateError(f"{file}: cannot tell its module name")
    name = ".".join(parts)
    _require_module_name(name)
    return name, directory


def _require_module_name(name: str) -> None:
    """Only names Python could import reach the checkers (and the runtime import).

    Validated here, at the entrance, so that every checker -- the runtime one,
    which imports, included -- only ever sees a dotted identifier.
    """
    if not is_module_name(name):
        raise GateError(f"{name!r} is not a valid module name; the gate only checks importable names")


def resolve_target(spec: str, roots: Sequence[Path] = ()) -> ResolvedTarget:
    """Locate a TARGET: a dotted module or package, ``module:Class``, or a path.

    ``roots`` are searched before the import path (``--sglang``'s source, so
    that ``sglang.srt.speculative`` is that release's). Raises
    :class:`GateError` for a target that cannot be found.
    """
    module_part, sep, class_name = spec.partition(":")
    if sep and not (class_name and class_name.replace(".", "").isidentifier()):
        raise GateError(f"{spec}: expected module:Class, and {class_name!r} is not a class name")
    looks_like_path = module_part.endswith(".py") or "/" in module_part or Path(module_part).exists()
    if looks_like_path:
        return _resolve_path(spec, Path(module_part), class_name or None)

    if not all(part.isidentifier() for part in module_part.split(".")):
        raise GateError(f"{spec}: not a module name, module:Class, or existing path")
    found = find_module_file(module_part, search_path(roots))
    if found is None:
        raise GateError(f"{spec}: no module named {module_part!r} on the import path")
    file = found
    # The directory the top-level package lives in: one level up per dotted part.
    depth = len(module_part.split(".")) - (0 if file.name == "__init__.py" or file.is_dir() else 1)
    root = file.parent
    for _ in range(depth):
        root = root.parent
    if file.is_dir():
        if class_name:
            raise GateError(f"{spec}: {module_part} is a namespace package, not a module")
        modules, notes = _package_modules(module_part, file)
        if not modules:
            raise GateError(f"{spec}: no Python modules in {file}")
        return ResolvedTarget(spec, modules, root, notes=tuple(notes))
    if file.name == "__init__.py" and not class_name:
        package, package_notes = _package_modules(module_part, file)
        return ResolvedTarget(spec, package, root, notes=tuple(package_notes))
    return ResolvedTarget(spec, {module_part: file}, root, class_name or None)


def _resolve_path(spec: str, path: Path, class_name: str | None) -> ResolvedTarget:
    if not path.exists():
        raise GateError(f"{spec}: no such file or directory")
    if path.is_file():
        if path.suffix != ".py":
            raise GateError(f"{spec}: not a Python file")
        name, root = _module_name_for_file(path)
        return ResolvedTarget(spec, {name: path.resolve()}, root, class_name)
    init = path / "__init__.py"
    if init.is_file():
        name, root = _module_name_for_file(init)
        package, package_notes = _package_modules(name, init.resolve())
        return ResolvedTarget(spec, package, root, class_name, notes=tuple(package_notes))
    # A plain directory of modules (no __init__.py): its files are top-level
    # modules, and each regular package in it a package.
    root = path.resolve()
    modules: dict[str, Path] = {}
    notes: list[str] = []
    for file in sorted(root.glob("*.py")):
        if is_module_name(file.stem):
            modules[file.stem] = file
        else:
            notes.append(f"{file}: not checked: {file.stem!r} is not an importable module name")
    # Subfolders count only as regular packages here: a plain folder (a
    # project root, say) also holds virtual environments and build trees, and
    # walking those as namespace packages would check whatever they contain.
    for sub in sorted(root.iterdir()):
        init = sub / "__init__.py"
        if not init.is_file() or sub.name in _NEVER_WALKED:
            continue
        if not is_module_name(sub.name):
            notes.append(f"{sub}: not checked: {sub.name!r} is not an importable package name")
            continue
        found, sub_notes = _package_modules(sub.name, init)
        modules.update(found)
        notes.extend(sub_notes)
    if not modules:
        raise GateError(f"{spec}: no Python modules in this directory")
    return ResolvedTarget(spec, modules, root, class_name, notes=tuple(notes))
