"""Running a checker as a subprocess, and what it said, before any interpretation.

Shared by the three adapters (and, through their ``invoke_*`` functions, by
the test suite and the benchmarks, which run the checkers with their own
configurations): a missing executable or a timeout is a ``GateError`` (exit
2), and each static checker's JSON output becomes :class:`Reported` values.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._model import GateError

__all__ = ["Invocation", "Reported", "last_output_line", "run_command"]


@dataclass(frozen=True, slots=True)
class Reported:
    """One diagnostic as the checker reported it (lines 1-based, columns 0-based)."""

    file: str
    line: int
    column: int
    severity: str  # "error", "warning", "note"/"information"
    code: str | None
    message: str


@dataclass(frozen=True, slots=True)
class Invocation:
    """One run of a checker: its exit status, its diagnostics, and its output."""

    returncode: int
    diagnostics: tuple[Reported, ...]
    stdout: str
    stderr: str
    seconds: float

    def errors(self) -> list[Reported]:
        return [d for d in self.diagnostics if d.severity == "error"]


def run_command(name: str, argv: Sequence[str], *, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run a checker; a missing executable or a timeout is a GateError (exit 2)."""
    try:
        return subprocess.run(
            list(argv), cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False
        )
    except FileNotFoundError:
        raise GateError(f"{name} is not installed: pip install 'spec-protocols[checkers]'") from None
    except subprocess.TimeoutExpired:
        raise GateError(f"{name} exceeded --timeout {timeout:g}s") from None


def last_output_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The last line a crashed checker printed (stderr first), for a one-line error."""
    text = (proc.stderr or proc.stdout or "").strip()
    return text.splitlines()[-1][:200] if text else "no output"
