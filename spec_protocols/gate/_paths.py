"""Where the gate keeps things, where it looks for modules, and how it tells an installation folder.

One place for every stage: every stage that writes under the cache (the
fetched sglang releases, the verdict cache, mypy's cache, the views and
overlays) asks :func:`cache_dir`; every stage that looks a module up without
importing it searches :func:`search_path` (with
:func:`~spec_protocols.gate._source.find_module_file`); every stage that must
treat an installed package differently from a project folder asks
:func:`in_installation`. Nothing here imports any other part of the gate, so
the lowest stage (the contract) may use it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["Stamp", "cache_dir", "in_installation", "interpreter_path", "search_path", "shown", "stamp", "top_level_location"]

#: A file's modification time (ns) and size: what tells that it changed.
Stamp = tuple[int, int]


def cache_dir() -> Path:
    """``$SPEC_PROTOCOLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/spec-protocols``, else ``~/.cache/spec-protocols``."""
    explicit = os.environ.get("SPEC_PROTOCOLS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spec-protocols"


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


def in_installation(path: Path) -> bool:
    """Whether ``path`` lies in an installation folder (``site-packages`` or
    ``dist-packages``), where every installed distribution sits side by side.

    Such a folder is never handed to a checker whole: it holds modules that
    shadow the checkers' own (``typing_extensions.py``, ``mypy_extensions.py``
    beside mypy's typeshed) and thousands of files no check needs. The
    checkers get a *view* of the packages they must read instead
    (:mod:`spec_protocols.gate._harness._environment`).
    """
    return bool({"site-packages", "dist-packages"} & set(path.parts))


def top_level_location(module: str, file: Path) -> Path:
    """The folder (or ``.py`` file) of ``module``'s top-level package, given the
    file discovery read it from: a module's ``.py`` file, a package's
    ``__init__.py`` or a namespace package's folder."""
    depth = module.count(".")
    if file.name == "__init__.py":
        depth += 1
    location = file
    for _ in range(depth):
        location = location.parent
    return location


def stamp(path: Path) -> Stamp | None:
    """``path``'s :data:`Stamp`; None where it cannot be read (gone, no permission)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def shown(path: Path) -> str:
    """``path`` as a report or a message shows it: relative to the current directory where it is below it, else whole."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
