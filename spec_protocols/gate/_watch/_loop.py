"""``spec-protocols check --watch``: check, then check again on every change.

Each round is the one-shot pipeline (:func:`~spec_protocols.gate._pipeline.run_gate`,
with the verdict cache unless ``--no-cache``), its report rendered in the
chosen format, whole, ending as the one-shot report ends. What is kept
between rounds:

* mypy and pyright stay warm (:mod:`._persistent`: the mypy daemon and
  pyright's language server, reading the configuration a one-shot run
  writes); the runtime checker's probe for the next round is started in
  advance, sglang already imported, when nothing could make that differ
  from a fresh probe (:mod:`._warm_probe`); a process serves one round
  (an import cannot be undone in a process);
* the contract and each discovery come from the verdict cache, keyed on the
  content of what they read, so an edit to a plugin reads sglang's source
  again only if sglang changed; with ``--no-cache`` each round reads them
  afresh.

The files a round's verdicts depend on (:func:`watch_set`) are polled
(:mod:`._changes`). The first round behaves as a one-shot run on bad input
(one line, exit 2); a later round that meets bad input (a syntax error in an
edited file) says so in its place and watching goes on. Ctrl-C ends it with
exit status 130, SIGTERM with 0; the daemon and the language server are
stopped and no child process is left behind.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, cast

from spec_protocols.gate._checkers import Checker
from spec_protocols.gate._model import CheckerName, GateError, GateReport
from spec_protocols.gate._paths import cache_dir, in_installation
from spec_protocols.gate._watch._changes import Snapshot, WatchSet, snapshot, wait_for_change
from spec_protocols.gate._watch._persistent import STOPPING, PersistentChecker
from spec_protocols.gate._watch._processes import end_children, end_naming

if TYPE_CHECKING:
    from spec_protocols.gate._baseline import BaselineEntry

__all__ = ["INTERRUPTED", "refuse_with_watch", "watch", "watch_set"]

#: Exit status of a watch ended by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


class _Terminated(Exception):
    """SIGTERM arrived."""


def refuse_with_watch(args: argparse.Namespace) -> None:
    """The options a watch cannot honour: a :class:`GateError` (one line, exit 2)."""
    if getattr(args, "write_baseline", None):
        raise GateError("--watch and --write-baseline contradict each other: a baseline is written once, by a one-shot run")
    if getattr(args, "output", None):
        raise GateError("--watch writes each round's report to stdout: --output cannot be used with it")
    if len(_releases(args)) > 1:
        raise GateError("--watch checks against one sglang: give --sglang once")


def _releases(args: argparse.Namespace) -> list[str]:
    """``--sglang``'s values (a list since it is repeatable; a string from older callers)."""
    given: object = getattr(args, "sglang", None)
    if given is None:
        return []
    if isinstance(given, str):
        return [given]
    return [str(g) for g in cast(list[object], given)]


def _sglang(args: argparse.Namespace) -> str | None:
    releases = _releases(args)
    return releases[0] if releases else None


def _warm(checkers: Sequence[Checker], root: Path) -> list[Checker]:
    """The checkers of a watch: mypy and pyright kept warm, the runtime
    checker's next probe started in advance, any other as it is."""
    from spec_protocols.gate._checkers._runtime import RuntimeChecker
    from spec_protocols.gate._watch._mypy_daemon import MypyDaemon
    from spec_protocols.gate._watch._pyright_server import PyrightServer
    from spec_protocols.gate._watch._warm_probe import WarmRuntime

    warm: list[Checker] = []
    for checker in checkers:
        if checker.name == CheckerName.MYPY and checker.reads_harness:
            warm.append(PersistentChecker(checker, MypyDaemon, root))
        elif checker.name == CheckerName.PYRIGHT and checker.reads_harness:
            warm.append(PersistentChecker(checker, PyrightServer, root))
        elif isinstance(checker, RuntimeChecker):
            runtime = WarmRuntime(root, checker)
            runtime.prepare()
            warm.append(runtime)
        else:
            warm.append(checker)
    return warm


def watch_set(report: GateReport, sglang: str | None, baseline: Path | None) -> WatchSet:
    """What the verdicts of ``report`` depend on: the targets' files and
    packages, the local modules they import (outside site-packages and the
    standard library), the baseline, and the sglang tree checked against."""
    from spec_protocols.gate._discovery import discover, resolve_target
    from spec_protocols.gate._paths import search_path
    from spec_protocols.gate._source import find_module_file

    files: set[Path] = set()
    folders: set[Path] = set()
    slow: set[Path] = set()
    root = Path(report.sglang.path) if report.sglang is not None else None
    if root is not None:
        slow.add(root / "sglang")
    extra_roots = [root] if root is not None and sglang is not None and not in_installation(root) else []
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    resolved = [resolve_target(spec, extra_roots) for spec in report.targets]
    for target in resolved:
        for file in target.modules.values():
            files.add(file)
            if file.name == "__init__.py":
                folders.add(file.parent)
        spec = Path(target.spec)
        if spec.is_dir():
            folders.add(spec.resolve())
    found = discover(resolved, extra_roots)
    path = search_path([*extra_roots, *found.search_roots])
    located = [find_module_file(name, path) for name in sorted(found.imported_modules)]
    for file in [*found.source_modules.values(), *(f for f in located if f is not None)]:
        if not in_installation(file) and not file.resolve().is_relative_to(stdlib):
            files.add(file)
    if baseline is not None:
        files.add(baseline)
    local = {f for f in files if not (root is not None and f.resolve().is_relative_to(root / "sglang"))}
    return WatchSet(frozenset(local), frozenset(folders), frozenset(slow))


def _targets_only(args: argparse.Namespace) -> WatchSet:
    """What the first round will read of the targets, before it runs (its
    state then is what a change after it is measured against)."""
    from spec_protocols.gate._discovery import resolve_target

    files: set[Path] = set()
    folders: set[Path] = set()
    for spec in args.targets:
        try:
            target = resolve_target(spec, [])
        except (GateError, OSError, SyntaxError):
            continue
        files.update(target.modules.values())
        folders.update(f.parent for f in target.modules.values() if f.name == "__init__.py")
    return WatchSet(frozenset(files), frozenset(folders))


def _covers(watched: WatchSet, path: Path) -> bool:
    """Whether ``path`` is one ``watched`` names or lists."""
    folders = (*watched.folders, *watched.slow_folders)
    return path in watched.files or any(path.is_relative_to(folder) for folder in folders)


@contextmanager
def _signals() -> Generator[None]:
    """SIGTERM raises :class:`_Terminated` in the main thread while the watch runs."""

    def terminated(signum: int, frame: FrameType | None) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Session:
    """One watch: its warm checkers, its rounds."""

    def __init__(self, args: argparse.Namespace, checkers: Sequence[Checker]) -> None:
        self.args = args
        base = cache_dir() / "runs"
        base.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="watch-", dir=base))
        self.checkers = _warm(checkers, self.root)
        self.watched = WatchSet()
        self.worker: threading.Thread | None = None
        self.state: Snapshot = {}

    def round(self) -> GateReport:
        """One check and its report on stdout."""
        from spec_protocols.gate._baseline import note_unused, unused_entries, unused_entry_line
        from spec_protocols.gate._pipeline import run_gate
        from spec_protocols.gate._reports import render

        args = self.args
        baseline = None
        if args.baseline:
            from spec_protocols.gate._baseline import load_baseline

            baseline = load_baseline(args.baseline)
        report = run_gate(
            args.targets,
            checkers=self.checkers,
            baseline=args.baseline,
            timeout=args.timeout,
            allow_import=not args.no_import,
            sglang=_sglang(args),
            cache=not args.no_cache,
        )
        unused: tuple[BaselineEntry, ...] = ()
        if baseline is not None and not args.ignore_unused_baseline:
            unused = unused_entries(report, baseline)
            report = note_unused(report, unused)
        text = render(report, args.format, include_timings=not args.no_timings)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        for entry in unused:
            _say(unused_entry_line(entry))
        return report

    def refresh(self, report: GateReport, before: Snapshot) -> None:
        """What to watch after ``report``, and its state as the round read it.

        A path already in ``before`` (taken before the round ran) keeps that
        state, so that an edit made while the round ran, or in the moment
        after its report, is a change for the next round; only a path the
        round brought into the watch is taken as it is now."""
        try:
            self.watched = watch_set(report, _sglang(self.args), self.args.baseline)
        except (GateError, OSError, SyntaxError):
            pass  # keep watching what the last good round read
        now = snapshot(self.watched)
        state = {p: before.get(p, stat) for p, stat in now.items()}
        state.update({p: stat for p, stat in before.items() if p not in now and _covers(self.watched, p)})
        self.state = state
        _say(f"watching {len(self.watched.files)} files for changes (Ctrl-C ends)")

    def checked(self) -> GateReport:
        """:meth:`round` in a thread of its own, waited for here: the main
        thread stays free for Ctrl-C and SIGTERM, which then stop the
        checkers under the round instead of waiting for them."""
        outcome: list[GateReport | BaseException] = []

        def work() -> None:
            try:
                outcome.append(self.round())
            except BaseException as error:  # noqa: BLE001 - handed to the main thread
                outcome.append(error)

        self.worker = threading.Thread(target=work, name="watch-round", daemon=True)
        self.worker.start()
        while self.worker.is_alive():
            self.worker.join(0.1)
        result = outcome[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def run(self) -> int:
        before = snapshot(_targets_only(self.args))
        self.refresh(self.checked(), before)  # bad input here is one line and exit 2, as in one-shot mode
        while True:
            change = wait_for_change(self.watched, self.state)
            if change is None:
                return 0
            changed, self.state = change
            _say(f"changed: {', '.join(_short(p) for p in changed[:3])}{' ...' if len(changed) > 3 else ''}")
            try:
                report = self.checked()
            except GateError as error:
                self._bad_round(error)
                continue
            self.refresh(report, self.state)

    def _bad_round(self, error: GateError) -> None:
        """A round that met bad input: its one line, where the report would be
        (stdout for the text format; stderr for a machine-read one, whose
        stdout stays a sequence of reports); watching goes on."""
        line = f"spec-protocols: error: {error}"
        if self.args.format == "text":
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        else:
            sys.stderr.write(line + "\n")
        _say("watching for the next change (Ctrl-C ends)")

    def close(self) -> None:
        """Stop the warm checkers, end every process the round left, remove the folder."""
        STOPPING.set()
        self._close_checkers()
        # A round cut short may start another probe as one ends: ended until it stops.
        worker = self.worker
        deadline = time.monotonic() + 60
        while True:
            end_children()
            if worker is None or not worker.is_alive() or time.monotonic() > deadline:
                break
            worker.join(0.2)
        self._close_checkers()  # a server started by the round's last moments
        end_children()
        end_naming(str(self.root))  # a daemon that detached before it said its pid
        shutil.rmtree(self.root, ignore_errors=True)

    def _close_checkers(self) -> None:
        from spec_protocols.gate._watch._warm_probe import WarmRuntime

        for checker in self.checkers:
            if isinstance(checker, (PersistentChecker, WarmRuntime)):
                checker.close()


def _short(path: Path) -> str:
    """``path`` relative to the current folder when it is below it, else whole."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _say(line: str) -> None:
    sys.stderr.write(f"spec-protocols: {line}\n")
    sys.stderr.flush()


def watch(args: argparse.Namespace, checkers: Sequence[Checker]) -> int:
    """Run ``check --watch``: rounds until Ctrl-C (exit 130) or SIGTERM (exit 0)."""
    refuse_with_watch(args)
    session = _Session(args, checkers)
    try:
        with _signals():
            try:
                return session.run()
            except KeyboardInterrupt:
                return INTERRUPTED
            except _Terminated:
                return 0
    finally:
        # Signals that arrive while the checkers are being stopped change nothing.
        with _ignoring_signals():
            session.close()


@contextmanager
def _ignoring_signals() -> Generator[None]:
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
