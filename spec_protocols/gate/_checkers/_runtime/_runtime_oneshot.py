"""The runtime checker: import the target, then verify_conformance on the classes.

It runs in a subprocess (:mod:`spec_protocols.gate._checkers._runtime._probe`):
importing sglang's workers costs ~5-10 s and ~1 GB, the import runs the
target's module-level code, and a crash or hang there must not take the gate
with it. It is the only checker that executes target code; choose
``--checker mypy --checker pyright`` (or ``--no-import``) to run none.

Verdicts are per class:

* a module that cannot be imported (it needs CUDA, raises, calls
  ``sys.exit``) makes the checks of its classes ``skipped``, with the error
  as the reason;
* a class that the import did not create (defined under ``if
  TYPE_CHECKING:``) is ``skipped`` alone; the module's other classes are
  checked;
* a probe that dies while importing a module (``os._exit``, a segfault)
  costs that module's classes (``skipped``, saying so); the classes already
  checked keep their results and a fresh probe checks the rest.

What the target prints cannot reach the results: the probe writes them to a
file in a private directory (mode 0700) that only this process and the probe
know, its stdout goes to ``/dev/null``, and its stderr is read only to explain
a crash in one line. A timeout (the whole run, all probes together) is a
:class:`GateError`, as is a probe that dies before importing anything.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast
from pathlib import Path
from spec_protocols.gate._checkers._runtime._probe_channel import (
    Checking,
    Importing,
    ProbeClass,
    ProbeFailed,
    ProbeRelease,
    ProbeRequest,
    ProbeResult,
    Settled,
    read_answer,
    read_progress,
    request_text,
)
from spec_protocols.gate._contract import CallShape, ReleaseTerms, release_terms
from spec_protocols.gate._harness import CheckInput, built_by
from spec_protocols.gate._checkers._interface import ThisPackage
from spec_protocols.gate._checkers._registry import CheckerName
from spec_protocols.gate._findings import RuntimeFinding, message
from spec_protocols.gate._model import (
    Check,
    CheckerCrashed,
    CheckerOutcome,
    ClassRole,
    DiscoveredClass,
    GateError,
    InjectionSite,
    Problem,
    Verdict,
)
from spec_protocols.gate._roles import class_terms, role_policies
__all__ = ["LABEL", "NAME", "SITE_NOTE", "Launch", "RuntimeChecker", "item_of", "release_of", "run_runtime"]

NAME = CheckerName.RUNTIME
#: How a sentence names it.
LABEL = "the runtime checker"

#: The note of an injection site: the runtime checker has no class to import.
SITE_NOTE = "an expression, not a class: the static checkers judge it where it is written"

# How much of the probe's stderr is read to explain a crash (the target may
# have written megabytes to it).
_STDERR_TAIL = 8192

#: How a probe is started in place of a fresh ``python -m ..._runtime_probe``
#: (the watch mode's pre-started process, ``gate._checkers._runtime._warm``): given
#: the request's bytes, the file its stderr must end up in and the seconds
#: left, it returns the probe's exit status (``subprocess.TimeoutExpired``
#: past them). Used for the first probe of a run only.
Launch = Callable[[bytes, Path, float], int]


def run_runtime(
    classes: Sequence[DiscoveredClass],
    search_roots: Sequence[Path],
    timeout: float,
    *,
    sites: Sequence[InjectionSite] = (),
    terms: ReleaseTerms | None = None,
    scan_modules: Sequence[str] = (),
    launch: Launch | None = None,
) -> CheckerOutcome:
    """Import the classes' modules in a probe process and check every class.

    ``timeout`` bounds the whole run, however many probes it takes. Each
    injection site in ``sites`` is ``skipped`` without a probe: it is an
    expression, which only the static checkers can judge where it stands.
    ``terms``: the members and keywords of the release checked against
    (default: the newest supported release's protocols). ``scan_modules``:
    modules whose classes only the import makes (``Discovery.runtime_built``);
    each is imported and the worker classes found there are checked, as a
    module of a listed class is scanned. ``launch``: how the first probe is
    started (default: a fresh subprocess, as every later one).
    """
    terms = terms if terms is not None else release_terms(None)
    start = time.perf_counter()
    verdicts: dict[Check, Verdict] = {}
    problems: dict[Check, tuple[Problem, ...]] = {}
    notes: dict[Check, str] = {}
    for site in sites:
        check = Check(site.target, ClassRole.INJECTED.protocol)
        verdicts[check] = Verdict.SKIPPED
        problems[check] = ()
        notes[check] = SITE_NOTE
    items = [item_of(index, c, terms) for index, c in enumerate(classes)]
    items += _scan_items(scan_modules, {c.module for c in classes}, len(items))
    died = False
    if items:
        results, died = _run_probes(
            items, search_roots, timeout, deadline=start + timeout, release=release_of(terms), launch=launch
        )
        for result in results:
            check = Check(result.target, result.protocol)
            verdicts[check] = result.verdict
            problems[check] = tuple(Problem(NAME, f.member, message(f), claim=_claim(f)) for f in result.findings)
            if result.note:
                notes[check] = result.note
    # A probe that died may not die next time (it was killed for memory, say):
    # such an outcome is not one to reuse.
    return CheckerOutcome(NAME, verdicts, problems, time.perf_counter() - start, notes, transient=died)


#: What a runtime finding's verification category says, that the instance sglang builds can settle.
_CLAIMS = {"missing": "exists", "kind": "kind", "signature": "call", "async": "call", "generator": "call"}


def _claim(finding: RuntimeFinding) -> str | None:
    """The :attr:`Problem.claim` of what the runtime checker found on the class.

    Its constructor problems (the call sglang makes, read from the class's
    signature) are ``call`` claims of ``__init__``: the replay makes that call."""
    if finding.kind == "presence":
        return "exists"
    if finding.member == "__init__" and (finding.context == "constructor" or finding.kind in ("call", "note")):
        return "call"
    if finding.kind != "verification" or finding.context != "member":
        return None
    return _CLAIMS.get(finding.category)


def item_of(index: int, found: DiscoveredClass, terms: ReleaseTerms) -> ProbeClass:
    """One class to probe, with what its registrations hold it to (the
    scheduler branches they select, a spec_class's capabilities, keywords a
    partial binds) or, for a built-in worker, the members it never meets:
    as the static checkers' harness holds it."""
    registered = class_terms(found.dotted, found.registrations, terms)
    calls = {member: tuple(cast(CallShape, s) for s in shapes) for member, shapes in registered.calls.items()}
    return ProbeClass(
        index,
        found.module,
        found.qualname,
        found.dotted,
        tuple(k.protocol for k in found.checks),
        found.may_be_abstract,
        calls=calls,
        capabilities=registered.capabilities,
        bound_keywords=registered.bound_keywords,
        builder=built_by(found) or "",
        factories=tuple(dict.fromkeys(r.factory for r in found.registrations if r.factory is not None)),
        unreached=tuple(sorted(registered.unreached)),
    )


def _scan_items(modules: Sequence[str], probed: set[str], start: int) -> list[ProbeClass]:
    """An item per module in ``modules`` that no listed class brings into the
    probe: it names no class (no protocol to check, so no result of its own),
    and importing it for it scans the module (``_runtime_probe._found_at_import``)."""
    fresh = [m for m in dict.fromkeys(modules) if m not in probed]
    return [ProbeClass(start + n, module, "", f"{module}:<import>", ()) for n, module in enumerate(fresh)]


def release_of(terms: ReleaseTerms) -> ProbeRelease:
    """What the probe needs of ``terms``."""
    return ProbeRelease(
        # The protocols a role holds a class to member by member (SpecWorker, DraftWorker).
        members={p.members: terms.checked(p.members) for p in role_policies() if p.members is not None},
        presence=terms.presence,
        nominal_hooks=dict(terms.nominal_hooks),
        constructor_keywords=terms.constructor_keywords,
        factory_keywords=terms.draft_factory_keywords,
        factory_writes=terms.draft_factory_writes,
        # A release outside the supported range: how it calls each method
        # (ReleaseTerms.call_shapes), which replaces the protocol's signature.
        call_shapes={protocol: dict(shapes) for protocol, shapes in terms.call_shapes.items()},
        # The hooks sglang finds with getattr: a class that defines one is
        # held to its calls, and to being iterable where sglang iterates it.
        hook_calls={
            protocol: {m: h.call for m, h in hooks.items() if h.call is not None} for protocol, hooks in terms.hooks.items()
        },
        hook_iterated={protocol: tuple(m for m, h in hooks.items() if h.iterated) for protocol, hooks in terms.hooks.items()},
    )


@dataclass(frozen=True, slots=True)
class _Run:
    """What one probe left behind."""

    finished: bool
    #: Results of the classes it settled, by the class's index.
    settled: dict[int, tuple[ProbeResult, ...]]
    #: What it was doing when it stopped.
    last: Importing | Checking | None
    returncode: int
    #: Why it crashed, in one line: its own error record, else its last stderr line.
    crash_line: str
    #: Whether it recorded a failure of its own (not the target's).
    failed: bool = False
    #: The end of what it wrote to stderr, kept with a crash for a bug report.
    output: str = ""


def _run_probes(
    items: list[ProbeClass],
    search_roots: Sequence[Path],
    timeout: float,
    *,
    deadline: float,
    release: ProbeRelease,
    launch: Launch | None = None,
) -> tuple[list[ProbeResult], bool]:
    """Every result, in request order, probing again after each death; and whether a probe died.

    Bounded: a probe that dies settles at least one more class (the one it
    died on is ``skipped``), or the run is a :class:`GateError`; so there are
    at most ``len(items)`` probes.
    """
    settled: dict[int, tuple[ProbeResult, ...]] = {}
    pending = items
    deaths = False
    # mkdtemp: mode 0700, a name no one else can predict or take.
    with tempfile.TemporaryDirectory(prefix="spec-protocols-runtime-") as private:
        for attempt in range(len(items)):
            first = launch if attempt == 0 else None
            run = _run_probe(pending, search_roots, Path(private), attempt, timeout, deadline, release, first)
            settled.update(run.settled)
            if run.finished:
                break
            died = run.last
            if died is None or run.failed:
                # It failed on its own, or died before importing anything:
                # the probe itself is broken, not the target.
                raise CheckerCrashed(NAME, _exit_words(run.returncode), run.crash_line, run.output, label=LABEL)
            deaths = True
            for item in pending:
                if item.index in settled:
                    continue
                if isinstance(died, Importing) and item.module == died.module:
                    reason = f"the runtime probe died while importing {died.module} ({_exit_words(run.returncode)})"
                elif isinstance(died, Checking) and item.index == died.index:
                    reason = f"the runtime probe died while checking {item.target} ({_exit_words(run.returncode)})"
                else:
                    continue
                settled[item.index] = _skipped(item, reason)
            remaining = [item for item in pending if item.index not in settled]
            if len(remaining) == len(pending):
                # Nothing settled: the death cannot be pinned on a class (a
                # thread of the target's, say). Probing again would repeat it.
                raise CheckerCrashed(NAME, _exit_words(run.returncode), run.crash_line, run.output, label=LABEL)
            pending = remaining
            if not pending:
                break
    return [result for item in items for result in settled[item.index]], deaths


def _target_of(items: list[ProbeClass], index: int) -> str:
    return next((item.target for item in items if item.index == index), "a class")


def _skipped(item: ProbeClass, reason: str) -> tuple[ProbeResult, ...]:
    return tuple(ProbeResult(item.target, protocol, Verdict.SKIPPED, note=reason) for protocol in item.protocols)


def _run_probe(
    items: list[ProbeClass],
    search_roots: Sequence[Path],
    private: Path,
    attempt: int,
    timeout: float,
    deadline: float,
    release: ProbeRelease,
    launch: Launch | None = None,
) -> _Run:
    result_file = private / f"result-{attempt}.json"
    progress_file = private / f"progress-{attempt}.jsonl"
    stderr_file = private / f"stderr-{attempt}.txt"
    # scan: the worker classes only the import makes are reported too.
    request = ProbeRequest(
        tuple(str(p) for p in search_roots), str(result_file), str(progress_file), tuple(items), release, scan=True
    )
    try:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise subprocess.TimeoutExpired("runtime_probe", timeout)
        if launch is not None:
            returncode = launch(request_text(request), stderr_file, remaining)
        else:
            returncode = _fresh_probe(request, stderr_file, remaining)
    except subprocess.TimeoutExpired:
        _, last, _ = _read_progress(progress_file)
        where = "starting"
        if isinstance(last, Importing):
            where = f"importing {last.module}"
        elif isinstance(last, Checking):
            where = f"checking {_target_of(items, last.index)}"
        raise GateError(f"the runtime checker exceeded --timeout {timeout:g}s while {where}") from None
    final = read_answer(result_file)
    if final is not None:
        return _Run(True, dict(final.results), None, returncode, "")
    settled, last, error = _read_progress(progress_file)
    tail = _stderr_tail(stderr_file)
    crash_line = error if error is not None else _last_line(tail)
    return _Run(False, settled, last, returncode, crash_line, failed=error is not None, output=tail)


def _fresh_probe(request: ProbeRequest, stderr_file: Path, remaining: float) -> int:
    """A probe in a fresh subprocess: its exit status."""
    # stderr to a file, not a pipe: a process the target spawns may hold
    # a pipe open long after the probe is gone, and nobody reads stdout.
    with stderr_file.open("wb") as stderr:
        return subprocess.run(
            [sys.executable, "-m", "spec_protocols.gate._checkers._runtime._probe"],
            input=request_text(request),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            timeout=remaining,
            check=False,
        ).returncode


def _read_progress(path: Path) -> tuple[dict[int, tuple[ProbeResult, ...]], Importing | Checking | None, str | None]:
    """The classes a probe settled (by index), the last thing it started, and its own error."""
    settled: dict[int, tuple[ProbeResult, ...]] = {}
    last: Importing | Checking | None = None
    error: str | None = None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return settled, None, None
    for record in read_progress(text):
        if isinstance(record, Settled):
            settled[record.index] = record.results
        elif isinstance(record, ProbeFailed):
            error = record.error
        else:
            last = record
    return settled, last, error


def _exit_words(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit {returncode}"


def _stderr_tail(path: Path) -> str:
    """The end of the probe's stderr, to explain a crash."""
    try:
        with path.open("rb") as stderr:
            stderr.seek(0, 2)
            size = stderr.tell()
            stderr.seek(max(0, size - _STDERR_TAIL))
            return stderr.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _last_line(tail: str) -> str:
    """The line that says why the probe stopped: its first error line, else its last line, whole."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines:
        return "no output"
    # A traceback ends with the exception; an error printed by hand is one line.
    return lines[-1]


class RuntimeChecker(ThisPackage):
    """The runtime checker: imports the target in a subprocess and runs
    ``verify_conformance`` / ``validate_draft_worker_cls`` on its classes."""

    name = NAME
    label = LABEL
    #: Its messages carry no expected/got signatures: they lead after the static checkers'.
    rank = 2

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        return self.run_with(check_input, None)

    def probe_roots(self, check_input: CheckInput) -> list[Path]:
        """The folders the probe imports the target from."""
        # The target is imported as it would be served: with the installed
        # sglang. A source tree the static checkers read (a release fetched
        # because none is installed) is not put on its path: its compiled
        # kernels are not in it.
        return [root for root in check_input.discovery.search_roots if root != check_input.sglang_root]

    def run_with(self, check_input: CheckInput, launch: Launch | None) -> CheckerOutcome:
        """:meth:`run`, its first probe started by ``launch`` (``None``: a fresh subprocess)."""
        found = check_input.discovery
        roots = self.probe_roots(check_input)
        return run_runtime(
            found.classes,
            roots,
            check_input.timeout,
            sites=found.sites,
            terms=check_input.terms,
            scan_modules=found.runtime_built,
            launch=launch,
        )
