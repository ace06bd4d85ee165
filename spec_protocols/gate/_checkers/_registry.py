"""The checkers the gate knows: their names, in report order, and where each lives.

This is the one place outside a checker's own module that names it. Importing
it imports no checker: the run memo (``gate/_cache/_runs.py``) and the CLI's
parser read the names before any stage is imported, and a checker's module is
imported when its object is first asked for (:func:`load`).

Adding a checker is a member of :class:`CheckerName` (its place is its column
in every report), a line in :data:`_LINES` naming its module and whether a run
uses it unasked, and the module itself, which defines ``CHECKER`` (see
docs/design.md, "Adding a checker").
"""

from __future__ import annotations

import enum
import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spec_protocols.gate._checkers._interface import Checker

__all__ = ["CHECKER_NAMES", "CheckerName", "is_default", "load"]


class CheckerName(enum.StrEnum):
    """A checker of the registry, in the order reports list them. A ``str``
    whose value is the name: ``--checker``, reports, baselines and the
    verdict cache read and write the same text."""

    RUNTIME = "runtime"
    MYPY = "mypy"
    PYRIGHT = "pyright"
    TY = "ty"


#: Each checker's module (it defines ``CHECKER``, the object the pipeline
#: runs), and whether a run with no ``--checker`` uses it.
_LINES: dict[CheckerName, tuple[str, bool]] = {
    CheckerName.RUNTIME: ("spec_protocols.gate._checkers._runtime", True),
    CheckerName.MYPY: ("spec_protocols.gate._checkers._mypy", True),
    CheckerName.PYRIGHT: ("spec_protocols.gate._checkers._pyright", True),
    # Experimental: chosen by name only (docs/agreement.md has its figures).
    CheckerName.TY: ("spec_protocols.gate._checkers._ty", False),
}

#: Every registered checker's name, in report order (``--checker``'s choices).
CHECKER_NAMES: tuple[str, ...] = tuple(name.value for name in CheckerName)


def load(name: str) -> Checker:
    """The registered checker ``name``, its module imported on first use."""
    checker: Checker = importlib.import_module(_LINES[CheckerName(name)][0]).CHECKER
    return checker


def is_default(name: str) -> bool:
    """Whether a run that names no checker uses ``name``."""
    return _LINES[CheckerName(name)][1]
