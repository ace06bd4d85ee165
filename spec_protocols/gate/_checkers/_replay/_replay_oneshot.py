"""The replay checker, one run: the request from the run's input, its driver process, its answer as verdicts."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from spec_protocols.gate._checkers._interface import ThisPackage
from spec_protocols.gate._checkers._registry import CheckerName
from spec_protocols.gate._checkers._replay._replay_channel import NO_REGISTRATION_NOTE, ReplayAnswer, ReplayRequest, read_answer, request_text
from spec_protocols.gate._checkers._runtime._runtime_oneshot import item_of, release_of
from spec_protocols.gate._discovery import REGISTER_CALL_NAMES
from spec_protocols.gate._findings import ReplayFinding, message
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import Check, CheckerOutcome, ClassRole, Discovery, GateError, Problem, Verdict
from spec_protocols.gate._source import ParseCache, ParsedFile

__all__ = ["LABEL", "NAME", "ReplayChecker", "StartedDriver"]

NAME = CheckerName.REPLAY
LABEL = "the replay checker"
#: The note of an injection site: an expression, which the replay meets only as what it builds.
SITE_NOTE = "an expression: the replay reports on the class it builds, where a registration reaches it"
_DRIVER = "spec_protocols.gate._checkers._replay._driver"
_PLUGIN_GROUP = "sglang.srt.plugins"


class ReplayChecker(ThisPackage):
    """The replay checker: registers the plugin as sglang does, builds what it
    registers with the scheduler's call and stand-ins for sglang's side, and
    fetches and binds every member sglang uses on the instance."""

    name = NAME
    label = LABEL
    #: Its words name sglang's call and the exception, not the expected signature: they lead after the runtime checker's.
    rank = 3

    def run(self, check_input: CheckInput, started: StartedDriver | None = None) -> CheckerOutcome:
        """The replay of ``check_input``'s plugin; ``started``: a driver started in
        advance to use for it (ended here, used or not)."""
        try:
            return self._run(check_input, started)
        finally:
            if started is not None:
                started.end()

    def _run(self, check_input: CheckInput, started: StartedDriver | None) -> CheckerOutcome:
        start = time.perf_counter()
        found = check_input.discovery
        outcome = _Outcome()
        for site in found.sites:
            outcome.skip(Check(site.target, ClassRole.INJECTED.protocol), SITE_NOTE)
            outcome.inapplicable.append(Check(site.target, ClassRole.INJECTED.protocol))
        # The plugin's files, each parsed once for the run (which register, and which function does it).
        files = ParseCache()
        if not _registers_anything(found, files):
            # Nothing in the plugin hands a class to sglang: the replay has no call sequence to replay,
            # and says so without importing sglang (the same words on every interpreter).
            for check in (check for cls in found.classes for check in cls.checks):
                outcome.skip(check, NO_REGISTRATION_NOTE)
                outcome.inapplicable.append(check)
        elif found.classes or found.runtime_built:
            with tempfile.TemporaryDirectory(prefix="spec-protocols-replay-") as private:
                request = _request(check_input, Path(private) / "answer.json", files)
                answer = _drive(request, Path(private), check_input.timeout, started)
            outcome.read(answer, found)
        return CheckerOutcome(NAME, outcome.verdicts, outcome.problems, time.perf_counter() - start, outcome.notes, evidence=outcome.evidence, inapplicable=tuple(outcome.inapplicable))


class _Outcome:
    def __init__(self) -> None:
        self.verdicts: dict[Check, Verdict] = {}
        self.problems: dict[Check, tuple[Problem, ...]] = {}
        self.notes: dict[Check, str] = {}
        self.evidence: dict[Check, tuple[tuple[str, str], ...]] = {}
        self.inapplicable: list[Check] = []

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
            if result.verdict is Verdict.SKIPPED and result.note == NO_REGISTRATION_NOTE:
                self.inapplicable.append(check)
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


def _request(check_input: CheckInput, answer: Path, files: ParseCache) -> ReplayRequest:
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
        register_functions=tuple(dict.fromkeys(_register_functions(found, files))),
        branch_shapes={branch: dict(shapes) for branch, shapes in terms.branch_shapes.items()},
        branch_only=dict(terms.branch_only),
        flag_only=dict(terms.flag_only),
        flags=tuple(
            dict.fromkeys(
                [
                    *(f for ways in terms.flag_only.values() for flags in ways for f in flags),
                    *(f for d in terms.defaults.values() for _, flags in d.relies_on_flags for f in flags),
                ]
            )
        ),
        registered=_registered(found),
    )


def _registered(found: Discovery) -> dict[str, tuple[str, ...]]:
    """Algorithm name -> the checked classes its registrations reach."""
    by_name: dict[str, list[str]] = {}
    for cls in found.classes:
        for registration in cls.registrations:
            by_name.setdefault(registration.name, []).append(cls.dotted)
    return {name: tuple(dict.fromkeys(targets)) for name, targets in by_name.items()}


def _registers_anything(found: Discovery, files: ParseCache) -> bool:
    """Whether anything in the plugin may register an algorithm with sglang: a
    registration discovery read, a module that makes classes at import, a call
    named as a register function anywhere in a checked class's module (a loop
    over a table, a factory function), or an installed ``sglang.srt.plugins``
    entry point of the plugin's packages. Generous on purpose: a wrong yes
    costs a driver process, a wrong no would skip a registered class."""
    if found.runtime_built or any(cls.registrations for cls in found.classes):
        return True
    modules = {cls.module for cls in found.classes}
    for name in modules:
        source = _source_of(name, found)
        if source is not None and _calls_a_register_function(files.parse(source)):
            return True
    packages = {name.partition(".")[0] for name in modules}
    try:
        points = importlib.metadata.entry_points(group=_PLUGIN_GROUP)
    except Exception:  # noqa: BLE001 - unreadable distribution metadata: assume a plugin may be there
        return True
    return any(point.value.partition(":")[0].strip().partition(".")[0] in packages for point in points)


def _source_of(module: str, found: Discovery) -> Path | None:
    """The file of ``module``: as discovery read it, else under a search root
    (a module discovery listed for its import only, with no class statement)."""
    known = found.source_modules.get(module)
    if known is not None:
        return known
    relative = Path(*module.split("."))
    for root in found.search_roots:
        for candidate in (root / relative.with_suffix(".py"), root / relative / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _calls_a_register_function(parsed: ParsedFile | None) -> bool:
    if parsed is None:
        return True  # unreadable here: the driver's import decides
    return _registers(parsed.tree)


def _registers(node: ast.AST) -> bool:
    """Whether ``node`` holds a call named as a register function."""
    return any(_call_name(n) in REGISTER_CALL_NAMES for n in ast.walk(node) if isinstance(n, ast.Call))


def _call_name(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


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


def _register_functions(found: Discovery, files: ParseCache) -> Iterator[str]:
    """``module:function`` for each module-level function with no required
    parameter whose body registers an algorithm: the plugin's ``register()``
    (where discovery read the registration, and where it could not: a loop
    over a table, a name built at run time)."""
    for file, line in _sites(found):
        module = _module_of(file, found)
        function = _enclosing_function(files.parse(file), line)
        if module is not None and function is not None:
            yield f"{module}:{function}"
    for name in dict.fromkeys([*(c.module for c in found.classes), *found.runtime_built]):
        source = _source_of(name, found)
        if source is not None:
            yield from (f"{name}:{function}" for function in _registering_functions(files.parse(source)))


def _registering_functions(parsed: ParsedFile | None) -> Iterator[str]:
    """The module-level functions of the file with no required parameter that call a register function."""
    if parsed is None:
        return
    for node in parsed.tree.body:
        if isinstance(node, ast.FunctionDef) and not _required(node.args) and _registers(node):
            yield node.name


def _required(args: ast.arguments) -> int:
    """How many arguments a call must pass."""
    positional = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    return positional + sum(1 for default in args.kw_defaults if default is None)


def _enclosing_function(parsed: ParsedFile | None, line: int) -> str | None:
    if parsed is None:
        return None
    for node in parsed.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return node.name if not _required(node.args) and isinstance(node, ast.FunctionDef) else None
    return None


class StartedDriver:
    """A driver process started before its request (the watch mode's next
    round): it imports sglang's side while the author edits, then waits on
    its standard input. Used once; :meth:`end` stops one never used."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.stderr_file = folder / "stderr.txt"
        self.environment = (dict(os.environ), os.getcwd(), sys.executable)
        with self.stderr_file.open("wb") as stderr:
            self.proc = subprocess.Popen(
                # Its folder on the command line: the watch's end stops every process naming its private folder.
                [sys.executable, "-m", _DRIVER, "--warm", str(folder)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )

    def same_environment(self) -> bool:
        """Whether it started where, and as, a fresh driver would start now."""
        return self.environment == (dict(os.environ), os.getcwd(), sys.executable) and self.proc.poll() is None

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def _drive(request: ReplayRequest, private: Path, timeout: float, started: StartedDriver | None = None) -> ReplayAnswer:
    """The driver process on ``request`` (``started``'s, where one waits): its
    answer, or why there is none."""
    if started is not None:
        answer = _answer_of(request, started.proc, started.stderr_file, timeout)
        if answer.unusable is None:
            return answer
    stderr_file = private / "stderr.txt"
    with stderr_file.open("wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", _DRIVER], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr)
    return _answer_of(request, proc, stderr_file, timeout)


def _answer_of(request: ReplayRequest, proc: subprocess.Popen[bytes], stderr_file: Path, timeout: float) -> ReplayAnswer:
    try:
        proc.communicate(input=request_text(request).encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise GateError(f"the replay checker exceeded --timeout {timeout:g}s") from None
    try:
        return read_answer(Path(request.answer_file))
    except (OSError, ValueError):
        tail = stderr_file.read_bytes()[-2000:].decode(errors="replace").strip().splitlines()
        last = tail[-1] if tail else f"exit {proc.returncode}"
        return ReplayAnswer(failure=f"the replay's process ended without an answer ({last})")
