"""The runtime checker: import the target, then verify_conformance on the classes.

It runs in a subprocess (:mod:`spec_protocols.gate.checkers.runtime_probe`):
importing sglang's workers costs ~5-10 s and ~1 GB, the import runs the
target's module-level code, and a crash or hang there must not take the gate
with it. It is the only checker that executes target code; choose
``--checker mypy --checker pyright`` (or ``--no-import``) to run none.

A module that cannot be imported (it needs CUDA, or raises) makes the checks
of its classes ``skipped``, with the error as the reason.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from spec_protocols.gate.checkers.base import last_output_line
from spec_protocols.gate.model import Check, CheckerOutcome, DiscoveredClass, GateError, Problem, Verdict
from spec_protocols.gate.harness import checks_for

__all__ = ["run_runtime"]

NAME = "runtime"


def run_runtime(classes: Sequence[DiscoveredClass], search_roots: Sequence[Path], timeout: float) -> CheckerOutcome:
    request = {
        "search_roots": [str(p) for p in search_roots],
        "classes": [
            {"module": c.module, "qualname": c.qualname, "target": c.dotted, "protocols": [k.protocol for k in checks_for(c)]}
            for c in classes
        ],
    }
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "spec_protocols.gate.checkers.runtime_probe"],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GateError(f"the runtime checker exceeded --timeout {timeout:g}s while importing the target") from None
    seconds = time.perf_counter() - start
    try:
        answer = json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise GateError(f"the runtime checker crashed (exit {proc.returncode}): {last_output_line(proc)}") from None
    verdicts: dict[Check, Verdict] = {}
    problems: dict[Check, tuple[Problem, ...]] = {}
    notes: dict[Check, str] = {}
    for item in answer["results"]:
        check = Check(item["target"], item["protocol"])
        verdicts[check] = Verdict(item["verdict"])
        problems[check] = tuple(Problem(NAME, p["member"], p["message"]) for p in item["problems"])
        if item.get("note"):
            notes[check] = item["note"]
    return CheckerOutcome(NAME, verdicts, problems, seconds, notes)
