"""Where a module lives, found the way the import system would find it, without importing it.

A helper shared by discovery (locating targets and the modules their bases
come from) and the harness stage (which sglang modules exist, for the
checkers' view). ``importlib.machinery.PathFinder`` only reads directories:
no package ``__init__`` runs.
"""

from __future__ import annotations

import keyword
import sys
from collections.abc import Sequence
from importlib.machinery import PathFinder
from pathlib import Path

__all__ = ["find_module_file", "interpreter_path", "is_module_name", "search_path"]


def search_path(extra: Sequence[Path] = ()) -> list[str]:
    """Where modules are looked up: ``extra``, the current directory (as
    ``python -m`` would), then the interpreter's path (:func:`interpreter_path`)."""
    return list(dict.fromkeys([*(str(p) for p in extra), str(Path.cwd()), *interpreter_path()]))


def interpreter_path() -> list[str]:
    """``sys.path`` without the folder of the program that started the gate.

    Python puts that folder first: ``bin/`` for the console script (and for
    pre-commit, which runs it), the current directory for ``python -m``.
    What the gate finds, and so every key of the verdict cache, must not
    depend on how it was started, so that folder is left out (the current
    directory is searched anyway); the runtime checker's probe, a program of
    its own, does not see it either.
    """
    entries = [p for p in sys.path if p]
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if sys.path and sys.path[0] and main_file is not None:
        try:
            if Path(sys.path[0]).resolve() == Path(main_file).resolve().parent:
                entries = entries[1:]
        except OSError:
            pass
    return entries


def is_module_name(name: str) -> bool:
    """Whether ``name`` is a dotted name Python could import (no keywords)."""
    return all(part.isidentifier() and not keyword.iskeyword(part) for part in name.split("."))


def find_module_file(
    name: str, search_path: Sequence[str], packages: dict[str, list[str]] | None = None
) -> Path | None:
    """The source of module ``name``: its ``.py`` file, a package's ``__init__.py``,
    or a namespace package's directory. None when it cannot be found.

    Walks the dotted name one component at a time with ``PathFinder``, which
    reads directories and never executes a package's ``__init__``.
    ``packages``: where the packages already walked are (dotted name ->
    their folders), for a caller that looks up many modules of one package
    on one ``search_path`` at one moment; filled as packages are found.
    """
    path: list[str] | None = list(search_path)
    spec = None
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
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
    if spec is None:
        return None
    if spec.origin in (None, "namespace"):
        # A namespace package (sglang.srt and sglang.srt.speculative are).
        locations = list(spec.submodule_search_locations or [])
        return Path(locations[0]) if locations else None
    origin = Path(spec.origin)
    return origin if origin.suffix == ".py" else None
