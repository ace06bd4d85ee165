"""The mypy checker: run once (:mod:`._mypy_oneshot`), or kept warm by its daemon (:mod:`._daemon`)."""

from __future__ import annotations

from spec_protocols.gate._checkers._mypy._daemon import MypyDaemon
from spec_protocols.gate._checkers._mypy._mypy_oneshot import (
    DIALECT,
    invoke,
    invoke_mypy,
    mypy_config,
    mypy_invocation,
    pin_settings,
    version,
)
from spec_protocols.gate._checkers._registry import CheckerName
from spec_protocols.gate._checkers._static_checker import StaticChecker

__all__ = ["CHECKER", "DIALECT", "MYPY", "invoke_mypy", "mypy_config", "mypy_invocation"]

#: The mypy checker; its reasons are less specific than pyright's, so they lead after them.
CHECKER = MYPY = StaticChecker(CheckerName.MYPY, CheckerName.MYPY, 1, DIALECT, version, invoke, MypyDaemon, pin_settings)
