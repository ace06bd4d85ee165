"""The conformance gate behind ``spec-protocols check``: its public surface.

Data flows one way; each arrow is a frozen value, so each stage is built and
tested alone::

    TARGET -> discovery -> harness -> checkers (runtime | mypy | pyright, in parallel) -> verdicts -> report

Use it from Python with :func:`run_gate` (and :func:`render` for a report in
any ``--format``; :func:`run_releases` for several sglang releases in one run,
a :class:`ReleasesReport`); bad input raises :class:`GateError` (the CLI prints it as
one line and exits 2). ``run_gate`` takes checker objects: the registry's
(:data:`DEFAULT_CHECKERS`, :func:`checkers_named`) or any :class:`Checker`.
A baseline is read with :func:`load_baseline`; what it accepted nothing of,
:func:`unused_entries` (and :func:`unused_entry_line` words it as the CLI
does): the pytest plugin makes the CLI's decision with these. The stages live in private modules, one room each:
``_discovery/``, ``_harness/``, ``_checkers/`` (one ``Checker`` interface and
its registry), ``_verdicts``, ``_baseline``, ``_reports/``; ``_pipeline``
joins them and ``_cli`` is the command.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spec_protocols.gate._baseline import load_baseline, unused_entries, unused_entry_line
    from spec_protocols.gate._checkers import CHECKER_NAMES, DEFAULT_CHECKERS, Checker, CheckerName, checkers_named
    from spec_protocols.gate._model import (
        Check,
        CheckerSkip,
        GateError,
        GateReport,
        Problem,
        ProtocolName,
        Result,
        SkipReason,
        Verdict,
    )
    from spec_protocols.gate._pipeline import default_targets
    from spec_protocols.gate._releases_run import unused_everywhere
    from spec_protocols.gate._request import CachePolicy, GateOutcome, GateRequest
    from spec_protocols.gate._run import run, run_gate, run_releases
    from spec_protocols.gate._reports._release_matrix import ReleaseRun, ReleasesReport
    from spec_protocols.gate._reports import FORMATS, render

# Each public name, and the private module it is imported from on first use
# (PEP 562): importing this package, or any module below it (the CLI does),
# costs no stage it does not use, so that a cached run imports only what it
# needs (docs/performance.md, "The edit loop").
_HOMES = {
    **dict.fromkeys(("load_baseline", "unused_entries", "unused_entry_line"), "_baseline"),
    **dict.fromkeys(("CHECKER_NAMES", "CheckerName", "DEFAULT_CHECKERS", "Checker", "checkers_named"), "_checkers"),
    **dict.fromkeys(
        (
            "Check",
            "CheckerSkip",
            "GateError",
            "GateReport",
            "Problem",
            "ProtocolName",
            "Result",
            "SkipReason",
            "Verdict",
        ),
        "_model",
    ),
    **dict.fromkeys(("default_targets",), "_pipeline"),
    **dict.fromkeys(("run", "run_gate", "run_releases"), "_run"),
    **dict.fromkeys(("unused_everywhere",), "_releases_run"),
    **dict.fromkeys(("CachePolicy", "GateOutcome", "GateRequest"), "_request"),
    **dict.fromkeys(("ReleaseRun", "ReleasesReport"), "_reports._release_matrix"),
    **dict.fromkeys(("FORMATS", "render"), "_reports"),
}


# Defined only outside TYPE_CHECKING (as spec_protocols' own), so that
# checkers do not read a module __getattr__ as "any name exists".
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})


__all__ = [
    "CHECKER_NAMES",
    "DEFAULT_CHECKERS",
    "FORMATS",
    "CachePolicy",
    "Check",
    "Checker",
    "CheckerName",
    "CheckerSkip",
    "GateError",
    "GateOutcome",
    "GateReport",
    "GateRequest",
    "Problem",
    "ProtocolName",
    "ReleaseRun",
    "ReleasesReport",
    "Result",
    "SkipReason",
    "Verdict",
    "checkers_named",
    "default_targets",
    "load_baseline",
    "render",
    "run",
    "run_gate",
    "run_releases",
    "unused_entries",
    "unused_entry_line",
    "unused_everywhere",
]
