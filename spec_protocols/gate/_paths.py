"""Where the gate keeps things and how it tells an installation folder: one place for every stage.

Every stage that writes under the cache (the fetched sglang releases, the
verdict cache, mypy's cache, the views and overlays) asks :func:`cache_dir`;
every stage that must treat an installed package differently from a project
folder asks :func:`in_installation`. Neither imports any other part of the
gate, so the lowest stage (the contract) may use them.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir", "in_installation", "top_level_location"]


def cache_dir() -> Path:
    """``$SPEC_PROTOCOLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/spec-protocols``, else ``~/.cache/spec-protocols``."""
    explicit = os.environ.get("SPEC_PROTOCOLS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spec-protocols"


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
