"""The runtime checker: the target imported in a probe process (:mod:`._runtime_oneshot`,
:mod:`._probe`), or, in the watch mode, with its next probe started in advance (:mod:`._warm`)."""

from __future__ import annotations

from pathlib import Path

from spec_protocols.gate._checkers._runtime._runtime_oneshot import LABEL, NAME, SITE_NOTE, Launch, RuntimeChecker, run_runtime
from spec_protocols.gate._checkers._runtime._warm import WarmRuntime

__all__ = ["CHECKER", "LABEL", "NAME", "RUNTIME", "SITE_NOTE", "Launch", "RuntimeChecker", "run_runtime"]


class _Runtime(RuntimeChecker):
    """The runtime checker, with its warm form."""

    def warm(self, root: Path) -> WarmRuntime:
        warm = WarmRuntime(root, self)
        warm.prepare()  # the first round's probe starts now, with the watch
        return warm


CHECKER = RUNTIME = _Runtime()
