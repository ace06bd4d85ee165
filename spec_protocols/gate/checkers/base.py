"""What the two static checkers share: running a command, and reading the harness.

Each static checker adapter turns its checker's own output into
:class:`Diagnostic` values (harness line, message, code). :func:`interpret`
turns those into verdicts, identically for mypy and pyright, using the line
tags of the harness (see :mod:`spec_protocols.gate.harness`).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate.harness import Harness, LineKind, LineTag
from spec_protocols.gate.model import Check, CheckerOutcome, GateError, Problem, Verdict

__all__ = ["Diagnostic", "StaticRun", "interpret", "last_output_line", "run_command"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    line: int
    message: str
    code: str | None = None


@dataclass(frozen=True, slots=True)
class StaticRun:
    """Everything a static adapter needs for one run."""

    harness: Harness
    harness_file: Path
    workdir: Path
    overlay: Path
    source_modules: Mapping[str, Path]
    search_roots: tuple[Path, ...]
    timeout: float


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


def _summary(message: str) -> str:
    """A checker's message in one line: its innermost line.

    pyright nests the reason under a headline that names the harness's own
    types ("Type ... is not assignable to declared type "_SpecWorker__..."",
    then, indented, "Missing keyword parameter "extra""); the innermost line
    is the one that tells the reader what to fix. mypy's messages are one line.
    """
    # pyright ends a long explanation with a bare "..." line: skip it.
    lines = [line.strip() for line in message.strip().splitlines() if line.strip() not in ("", "...")]
    return lines[-1] if lines else message.strip()


def interpret(
    checker: str, harness: Harness, diagnostics: Sequence[Diagnostic], *, seconds: float = 0.0
) -> CheckerOutcome:
    """Verdicts for every check of the harness from one checker's diagnostics."""
    by_line: dict[int, list[Diagnostic]] = {}
    for diag in diagnostics:
        by_line.setdefault(diag.line, []).append(diag)

    untagged = [d for line, ds in by_line.items() if line not in harness.tags for d in ds]
    if untagged:
        # An error outside the tagged lines means the harness itself did not
        # check (an import of spec_protocols failed, say): nothing is verified.
        first = min(untagged, key=lambda d: d.line)
        detail = f"{checker} could not check the harness (line {first.line}: {_summary(first.message)})"
        return CheckerOutcome(
            checker,
            {c: Verdict.UNVERIFIED for c in harness.checks},
            {c: (Problem(checker, None, detail),) for c in harness.checks},
            seconds,
        )

    tags_by_target: dict[str, list[tuple[int, LineTag]]] = {}
    for line, tag in harness.tags.items():
        tags_by_target.setdefault(tag.target, []).append((line, tag))

    verdicts: dict[Check, Verdict] = {}
    problems: dict[Check, tuple[Problem, ...]] = {}
    for tagged in tags_by_target.values():
        checks = sorted({t.check for _, t in tagged if t.check is not None})
        kinds = {t.kind: line for line, t in tagged if t.kind in (LineKind.IMPORT, LineKind.CANARY_CLASS, LineKind.CANARY_INSTANCE)}
        import_errors = by_line.get(kinds[LineKind.IMPORT], [])
        class_canary_fired = bool(by_line.get(kinds[LineKind.CANARY_CLASS]))
        has_getattr = not by_line.get(kinds[LineKind.CANARY_INSTANCE])
        if import_errors or not class_canary_fired:
            why = (
                f"{checker} could not import it: {_summary(import_errors[0].message)}"
                if import_errors
                else f"{checker} sees this class as Any/Unknown (an untyped or unresolved import or base class), "
                "so nothing about it can be verified"
            )
            for check in checks:
                verdicts[check] = Verdict.UNVERIFIED
                problems[check] = (Problem(checker, None, why),)
            continue
        for check in checks:
            found: list[Problem] = []
            whole: list[Problem] = []
            for line, tag in sorted(tagged):
                if tag.check != check:
                    continue
                for diag in by_line.get(line, []):
                    message = _summary(diag.message)
                    if tag.kind is LineKind.MEMBER and tag.is_property:
                        # Class-object access to a property: authoritative only
                        # for a class with __getattr__ (otherwise the instance
                        # lines decide, and an attribute set in __init__ is
                        # legitimately absent from the class object). mypy
                        # says so outright for instance-only attributes.
                        if not has_getattr or "instance-only attribute" in message:
                            continue
                    problem = Problem(checker, tag.member, message)
                    (whole if tag.kind is LineKind.PROTOCOL else found).append(problem)
            # The whole-protocol line repeats what the member lines say; keep it
            # only when it is the sole evidence (it then names no member).
            result = found or whole
            verdicts[check] = Verdict.FAIL if result else Verdict.PASS
            problems[check] = tuple(_dedupe(result))
    return CheckerOutcome(checker, verdicts, problems, seconds)


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str | None, str]] = set()
    out: list[Problem] = []
    for p in problems:
        key = (p.member, p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out

