"""The replay checker, one run: the request from the run's input, its driver process, its answer as verdicts."""

from __future__ import annotations

import ast
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from spec_protocols.gate._checkers._registry import CheckerName
from spec_protocols.gate._checkers._replay._channel import ReplayAnswer, ReplayRequest, read_answer, request_text
from spec_protocols.gate._checkers._runtime._oneshot import item_of, release_of
from spec_protocols.gate._findings import ReplayFinding, message
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import Check, CheckerOutcome, ClassRole, Discovery, GateError, Problem, Verdict

__all__ = ["LABEL", "NAME", "ReplayChecker"]

NAME = CheckerName.REPLAY
LABEL = "the replay checker"
#: The note of an injection site: an expression, which the replay meets only as what it builds.
SITE_NOTE = "an expression: the replay reports on the class it builds, where a registration reaches it"
_DRIVER = "spec_protocols.gate._checkers._replay._driver"


class ReplayChecker:
    """The replay checker: registers the plugin as sglang does, builds what it
    registers with the scheduler's call and stand-ins for sglang's side, and
    fetches and binds every member sglang uses on the instance."""

    name = NAME
    label = LABEL
    #: Its words name sglang's call and the exception, not the expected signature: they lead after the runtime checker's.
    rank = 3
    reads_harness = False
    imports_target = True
    dialect = None
    pin = None

    def version(self) -> str:
        return _version()

    def distributed(self) -> bool:
        return True  # this package's own version, which the installed distributions list

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        start = time.perf_counter()
        found = check_input.discovery
        outcome = _Outcome()
        for site in found.sites:
            outcome.skip(Check(site.target, ClassRole.INJECTED.protocol), SITE_NOTE)
        if found.classes:
            with tempfile.TemporaryDirectory(prefix="spec-protocols-replay-") as private:
                answer = _drive(_request(check_input, Path(private) / "answer.json"), Path(private), check_input.timeout)
            outcome.read(answer, found)
        return CheckerOutcome(NAME, outcome.verdicts, outcome.problems, time.perf_counter() - start, outcome.notes, evidence=outcome.evidence)


class _Outcome:
    def __init__(self) -> None:
        self.verdicts: dict[Check, Verdict] = {}
        self.problems: dict[Check, tuple[Problem, ...]] = {}
        self.notes: dict[Check, str] = {}
        self.evidence: dict[Check, tuple[tuple[str, str], ...]] = {}

    def skip(self, check: Check, note: str) -> None:
        self.verdicts[check] = Verdict.SKIPPED
        self.problems[check] = ()
        self.notes[check] = note

    def read(self, answer: ReplayAnswer, found: Discovery) -> None:
        checks = [check for cls in found.classes for check in cls.checks]
        if answer.failure is not None:
            for check in checks:
                self.skip(check, answer.failure)
            return
        for result in answer.results:
            check = Check(result.target, result.protocol)
            self.verdicts[check] = result.verdict
            self.problems[check] = tuple(_problem(f) for f in result.findings)
            self.evidence[check] = result.evidence
            if result.note:
                self.notes[check] = result.note
        for check in checks:
            if check not in self.verdicts:
                self.skip(check, "the replay did not report on it")


def _problem(finding: ReplayFinding) -> Problem:
    """A replay finding as a problem: a blind spot where the replay stopped, yielding to another checker's pass."""
    file, _, line = finding.where.rpartition(":")
    stopped = finding.kind == "stopped"
    return Problem(
        NAME, finding.member, message(finding), file or None, int(line) if line.isdigit() else None, unverified=stopped, unmodelled=stopped
    )


def _request(check_input: CheckInput, answer: Path) -> ReplayRequest:
    found = check_input.discovery
    terms = check_input.terms
    roots = [root for root in found.search_roots if root != check_input.sglang_root]
    modules = dict.fromkeys([*(c.module for c in found.classes), *found.runtime_built, *_registering_modules(found)])
    return ReplayRequest(
        tuple(str(r) for r in roots),
        str(answer),
        tuple(modules),
        tuple(item_of(index, cls, terms) for index, cls in enumerate(found.classes)),
        release_of(terms),
        register_functions=tuple(dict.fromkeys(_register_functions(found))),
        branch_shapes={branch: dict(shapes) for branch, shapes in terms.branch_shapes.items()},
    )


def _module_of(file: Path, found: Discovery) -> str | None:
    """The dotted name ``file`` is imported by, from the search roots (a package's ``__init__`` is the package)."""
    resolved = file.resolve()
    for root in found.search_roots:
        try:
            parts = list(resolved.relative_to(root.resolve()).with_suffix("").parts)
        except ValueError:
            continue
        if parts and parts[-1] == "__init__":
            parts.pop()
        if parts and all(part.isidentifier() for part in parts):
            return ".".join(parts)
    return next((name for name, f in found.source_modules.items() if f.resolve() == resolved), None)


def _sites(found: Discovery) -> Iterator[tuple[Path, int]]:
    """Where each registration of a checked class is written."""
    for cls in found.classes:
        for registration in cls.registrations:
            file, _, line = registration.site.rpartition(":")
            if line.isdigit():
                yield Path(file), int(line)


def _registering_modules(found: Discovery) -> Iterator[str]:
    """The modules whose source holds a registration (the plugin's loader imports them)."""
    for file, _ in _sites(found):
        module = _module_of(file, found)
        if module is not None:
            yield module


def _register_functions(found: Discovery) -> Iterator[str]:
    """``module:function`` for each module-level function with no required
    parameter whose body registers an algorithm: the plugin's ``register()``
    (where discovery read the registration, and where it could not: a loop
    over a table, a name built at run time)."""
    for file, line in _sites(found):
        module = _module_of(file, found)
        function = _enclosing_function(file, line)
        if module is not None and function is not None:
            yield f"{module}:{function}"
    for name in dict.fromkeys(c.module for c in found.classes):
        source = found.source_modules.get(name)
        if source is not None:
            yield from (f"{name}:{function}" for function in _registering_functions(source))


#: What a call that registers an algorithm is named (``SpeculativeAlgorithm.register``, ``register_algorithm``).
_REGISTERS = frozenset({"register", "register_algorithm"})


def _registering_functions(file: Path) -> Iterator[str]:
    """The module-level functions of ``file`` with no required parameter that call a register function."""
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not _required(node.args):
            calls = (n for n in ast.walk(node) if isinstance(n, ast.Call))
            names = {c.func.attr if isinstance(c.func, ast.Attribute) else getattr(c.func, "id", "") for c in calls}
            if names & _REGISTERS:
                yield node.name


def _required(args: ast.arguments) -> int:
    """How many arguments a call must pass."""
    positional = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    return positional + sum(1 for default in args.kw_defaults if default is None)


def _enclosing_function(file: Path, line: int) -> str | None:
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return node.name if not _required(node.args) and isinstance(node, ast.FunctionDef) else None
    return None


def _drive(request: ReplayRequest, private: Path, timeout: float) -> ReplayAnswer:
    """The driver process on ``request``: its answer, or why there is none."""
    stderr_file = private / "stderr.txt"
    try:
        with stderr_file.open("wb") as stderr:
            proc = subprocess.run(
                [sys.executable, "-m", _DRIVER],
                input=request_text(request).encode(),
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                timeout=timeout,
                check=False,
            )
    except subprocess.TimeoutExpired:
        raise GateError(f"the replay checker exceeded --timeout {timeout:g}s") from None
    try:
        return read_answer(Path(request.answer_file))
    except (OSError, ValueError):
        tail = stderr_file.read_bytes()[-2000:].decode(errors="replace").strip().splitlines()
        last = tail[-1] if tail else f"exit {proc.returncode}"
        return ReplayAnswer(failure=f"the replay's process ended without an answer ({last})")


@cache
def _version() -> str:
    from spec_protocols import __version__

    return f"{__version__} (Python {platform.python_version()})"

