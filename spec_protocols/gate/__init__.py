"""The conformance gate behind ``spec-protocols check``.

    TARGET -> discovery -> harness -> checkers (runtime | mypy | pyright, in parallel) -> verdicts -> report

Use it from Python with :func:`run_gate`; every stage's data is a frozen
dataclass in :mod:`spec_protocols.gate._model`. Bad input raises
:class:`GateError` (the CLI prints it as one line and exits 2).
"""

from __future__ import annotations

from spec_protocols.gate._pipeline import default_targets, run_gate
from spec_protocols.gate._model import CHECKER_NAMES, Check, GateError, GateReport, Problem, Result, Verdict

__all__ = [
    "CHECKER_NAMES",
    "Check",
    "GateError",
    "GateReport",
    "Problem",
    "Result",
    "Verdict",
    "default_targets",
    "run_gate",
]
