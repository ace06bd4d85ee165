"""The pyright checker: run once (:mod:`._pyright_oneshot`), or kept warm as its language server (:mod:`._server`)."""

from __future__ import annotations

from spec_protocols.gate._checkers._pyright._pyright_oneshot import (
    DIALECT,
    find_pyright,
    invoke,
    invoke_pyright,
    pin_settings,
    pyright_config,
    version,
)
from spec_protocols.gate._checkers._pyright._server import PyrightServer
from spec_protocols.gate._checkers._registry import CheckerName
from spec_protocols.gate._checkers._static_checker import StaticChecker

__all__ = ["CHECKER", "DIALECT", "PYRIGHT", "find_pyright", "invoke_pyright", "pyright_config"]

#: The pyright checker; its reasons are the most specific ("Missing keyword
#: parameter "on_publish""), so they lead where a view shows one problem.
CHECKER = PYRIGHT = StaticChecker(
    CheckerName.PYRIGHT, CheckerName.PYRIGHT, 0, DIALECT, version, invoke, PyrightServer, pin_settings
)
