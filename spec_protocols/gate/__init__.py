"""The conformance gate behind ``spec-protocols check``: its public surface.

Data flows one way; each arrow is a frozen value, so each stage is built and
tested alone::

    TARGET -> discovery -> harness -> checkers (runtime | mypy | pyright, in parallel) -> verdicts -> report

Use it from Python with :func:`run_gate` (and :func:`render` for a report in
any ``--format``); bad input raises :class:`GateError` (the CLI prints it as
one line and exits 2). The stages live in private modules, one room each:
``_discovery/``, ``_harness/``, ``_checkers/`` (one ``Checker`` interface and
its registry), ``_verdicts``, ``_baseline``, ``_reports/``; ``_pipeline``
joins them and ``_cli`` is the command.
"""

from __future__ import annotations

from spec_protocols.gate._model import CHECKER_NAMES, Check, GateError, GateReport, Problem, Result, Verdict
from spec_protocols.gate._pipeline import default_targets, run_gate
from spec_protocols.gate._reports import FORMATS, render

__all__ = [
    "CHECKER_NAMES",
    "FORMATS",
    "Check",
    "GateError",
    "GateReport",
    "Problem",
    "Result",
    "Verdict",
    "default_targets",
    "render",
    "run_gate",
]
