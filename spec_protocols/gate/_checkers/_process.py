"""Running a checker as a subprocess, and what it said, before any interpretation.

Shared by the three adapters (and, through their ``invoke_*`` functions, by
the test suite and the benchmarks, which run the checkers with their own
configurations): a missing executable or a timeout is a ``GateError`` (exit
2), and each static checker's JSON output becomes :class:`Reported` values.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._model import CheckerCrashed, GateError

__all__ = ["Invocation", "Reported", "crash", "executable", "first_error_line", "run_command"]


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
    """One run of a static checker over a harness: its exit status, its
    diagnostics parsed into :class:`Reported`, its output, and how long it took."""

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


#: A line that states an error: ``file.py:3: error: ...``, ``INTERNAL ERROR ...``,
#: ``Error: ...``, or the last line of a Python traceback (``KeyError: 'x'``).
_ERROR_LINE = re.compile(r"(\berror\b|^INTERNAL ERROR|^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)(:|$))", re.IGNORECASE)


def first_error_line(text: str) -> str | None:
    """The first line of ``text`` that states an error, whole; None when none does."""
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("Traceback (most recent call last)") and _ERROR_LINE.search(line):
            return line
    return None


def crash(
    checker: str, proc: subprocess.CompletedProcess[str], first_error: str | None = None, *, ended: str | None = None
) -> CheckerCrashed:
    """The crash of ``checker`` that ``proc`` shows: its first error whole
    (``first_error`` when the adapter read one from the checker's own report,
    else the first error line it printed, stderr first, else its last line)."""
    stderr, stdout = (proc.stderr or "").strip(), (proc.stdout or "").strip()
    line = first_error or first_error_line(stderr) or first_error_line(stdout)
    if line is None:
        text = stderr or stdout
        line = text.splitlines()[-1].strip() if text else "no output"
    output = f"exit status {proc.returncode}\n--- stdout\n{proc.stdout or ''}\n--- stderr\n{proc.stderr or ''}"
    return CheckerCrashed(checker, ended or f"exit {proc.returncode}", line, output)


def executable(program: str, install: str) -> str:
    """``program`` next to this interpreter, else on PATH; not found:
    :class:`GateError`, saying ``install`` (how to install it)."""
    here = Path(sys.executable).parent
    found = shutil.which(program, path=os.pathsep.join([str(here), os.environ.get("PATH", "")]))
    if found is None:
        raise GateError(f"{program} is not installed: {install}")
    return found
