"""Where a module lives, found the way the import system would find it, without importing it.

One locator for the whole gate: the contract (the installed sglang, and the
modules of a release it follows), discovery (targets, and the modules their
bases come from), the harness stage (which sglang modules exist) and the
verdict cache (what a top-level name is imported from) all ask it.
``importlib.machinery.PathFinder`` only reads directories: no package
``__init__`` runs.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable, Sequence
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path

__all__ = ["find_module_file", "is_module_name", "module_locations", "module_spec"]


def is_module_name(name: str) -> bool:
    """Whether ``name`` is a dotted name Python could import (no keywords)."""
    return all(part.isidentifier() and not keyword.iskeyword(part) for part in name.split("."))


def module_spec(name: str, search_path: Iterable[str], packages: dict[str, list[str]] | None = None) -> ModuleSpec | None:
    """The spec of module ``name`` on ``search_path``; None when it cannot be found.

    Walks the dotted name one component at a time with ``PathFinder``, which
    reads directories and never executes a package's ``__init__``.
    ``packages``: where the packages already walked are (dotted name ->
    their folders), for a caller that looks up many modules of one package
    on one ``search_path`` at one moment; filled as packages are found.
    """
    path: list[str] | None = list(search_path)
    spec = None
    parts = name.split(".")
    start = 0
    if packages is not None:
        # Start below the deepest package already walked.
        for depth in range(len(parts) - 1, 0, -1):
            known = packages.get(".".join(parts[:depth]))
            if known is not None:
                path, start = list(known), depth
                break
    for depth in range(start, len(parts)):
        if path is None:
            return None  # a plain module has no submodules
        # Only the last component is passed: PathFinder looks up the tail name
        # in `path` anyway, and a dotted name would make it consult
        # sys.modules for the parent of a namespace package (a KeyError when,
        # as here, nothing was imported).
        spec = PathFinder.find_spec(parts[depth], path)
        if spec is None:
            return None
        path = list(spec.submodule_search_locations or []) or None
        if packages is not None and path is not None:
            packages[".".join(parts[: depth + 1])] = path
    return spec


def find_module_file(
    name: str, search_path: Sequence[str], packages: dict[str, list[str]] | None = None
) -> Path | None:
    """The source of module ``name``: its ``.py`` file, a package's ``__init__.py``,
    or a namespace package's directory (its first portion). None when it
    cannot be found, or is not Python source (an extension module).
    ``packages``: as for :func:`module_spec`."""
    if not all(part.isidentifier() for part in name.split(".")):
        return None
    spec = module_spec(name, search_path, packages)
    if spec is None:
        return None
    if spec.origin in (None, "namespace"):
        # A namespace package (sglang.srt and sglang.srt.speculative are).
        locations = list(spec.submodule_search_locations or [])
        return Path(locations[0]) if locations else None
    origin = Path(spec.origin)
    return origin if origin.suffix == ".py" else None


def module_locations(name: str, search_path: Iterable[str]) -> list[Path] | None:
    """Everything module ``name`` would be imported from: a package's folder,
    every portion of a namespace package (its submodules may be in any), a
    module's file of any kind (an extension module too); ``[]`` for a
    built-in or frozen module, None when it is not found (or the search path
    holds an entry ``PathFinder`` refuses)."""
    try:
        spec = module_spec(name, search_path)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return [Path(p) for p in spec.submodule_search_locations]
    return [Path(spec.origin)] if spec.origin and spec.origin not in ("built-in", "frozen") else []
