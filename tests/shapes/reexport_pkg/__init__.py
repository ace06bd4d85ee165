"""Re-exported base: a package re-exports its worker base from ``.bases``; workers import it from the package.

``from reexport_pkg import PluginBase`` names the package, whose
``__init__`` re-exports the class from a submodule. Discovery must follow the
re-export, and mypy must read both modules from source (the package's
``__init__`` included); otherwise the worker's base is ``Any`` and the check is
vacuous.
"""

from __future__ import annotations

from .bases import PluginBase

__all__ = ["PluginBase"]
