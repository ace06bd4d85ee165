"""``spec-protocols check --watch``: check, then check again on every change.

Each round is the one-shot run of the command's request
(:func:`~spec_protocols.gate._request.run`), its report rendered in the
chosen format, whole, ending as the one-shot report ends. What is kept
between rounds: each checker as it runs warm (``Checker.warm``: mypy's
daemon and pyright's language server on the one-shot configuration, the
runtime checker's next probe started in advance), and the verdict cache's
stored contract and discoveries (with ``--no-cache``, none). The warm
checkers a first round did not run, the cache having answered for them, are
started right after its report by a round of them alone, discarded
(:meth:`_Session.warm_up`), so that the first edit finds them up. A round goes
through every stage, so that it knows what it read; those files are polled
(:mod:`._changes`). The first round behaves as a one-shot run on bad input
(one line, exit 2); a later round that meets bad input (a syntax error in an
edited file) says so in its place and watching goes on. Ctrl-C ends it with
exit status 130, SIGTERM with 0; every warm checker is stopped and no child
process is left behind, within :data:`END_WITHIN_S` of the signal whatever
a checker does.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Generator, Iterable
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from dataclasses import replace

from spec_protocols.gate._checkers import WarmChecker
from spec_protocols.gate._model import GateError
from spec_protocols.gate._paths import cache_dir, shown
from spec_protocols.gate._request import CachePolicy, GateOutcome, GateRequest
from spec_protocols.gate._run import run
from spec_protocols.gate._watch._changes import Snapshot, WatchSet, snapshot, wait_for_change
from spec_protocols.gate._checkers._persistent import STOPPING
from spec_protocols.gate._watch._processes import end_children, end_naming

__all__ = ["INTERRUPTED", "end_checkers", "refuse_with_watch", "warm_checkers", "warm_rounds", "watch"]

#: Exit status of a watch ended by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


class _Terminated(Exception):
    """SIGTERM arrived."""


def refuse_with_watch(request: GateRequest, output: Path | None) -> None:
    """The options a watch cannot honour: a :class:`GateError` (one line, exit 2)."""
    if request.write_baseline is not None:
        raise GateError("--watch and --write-baseline contradict each other: a baseline is written once, by a one-shot run")
    if output is not None:
        raise GateError("--watch writes each round's report to stdout: --output cannot be used with it")
    if len(request.releases) > 1:
        raise GateError("--watch checks against one sglang: give --sglang once")


def warm_checkers(request: GateRequest, root: Path) -> dict[str, WarmChecker]:
    """``request``'s checkers, each as it runs warm (its own module says how), their processes below ``root``, by name."""
    from spec_protocols.gate._pipeline import choose_checkers

    return {checker.name: checker.warm(root) for checker in choose_checkers(request)}


def warm_rounds(request: GateRequest, prefix: str) -> tuple[Path, dict[str, WarmChecker], GateRequest]:
    """A folder for warm checkers (``prefix`` names it, below the cache's runs),
    ``request``'s checkers started warm in it, and the request each round runs.

    Each round is the one-shot run of the request with the warm checkers; it
    goes through every stage (their stored results reused), so that it knows
    what it read (the watch's next round waits on those files) and is never
    answered from the run memo of another text."""
    base = cache_dir() / "runs"
    base.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    checkers = warm_checkers(request, root)
    cache = CachePolicy.OFF if request.cache is CachePolicy.OFF else CachePolicy.STAGES
    return root, checkers, replace(request, registry=checkers, checkers=tuple(checkers), cache=cache)


def end_checkers(checkers: Iterable[WarmChecker], root: Path) -> None:
    """Stop ``checkers`` for good, and every process they started (below ``root``)."""
    STOPPING.set()
    for checker in checkers:
        checker.close()
    end_children()
    end_naming(str(root))  # a daemon that detached before it said its pid


def _targets_only(request: GateRequest) -> WatchSet:
    """What the first round will read of the targets, before it runs (its
    state then is what a change after it is measured against)."""
    from spec_protocols.gate._discovery import resolve_target

    files: set[Path] = set()
    folders: set[Path] = set()
    for spec in request.targets:
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


#: How long the watch may take to end once Ctrl-C or SIGTERM arrives. The
#: clean end stops each warm checker in turn, each with timeouts of its own;
#: past this, whatever still holds it (a checker that will not answer, a
#: thread the interpreter would wait for at exit) is not waited for: every
#: child and every process naming the watch's folder is ended, and the
#: process exits with the status the signal asked for.
END_WITHIN_S = 120.0


def _end_hard_after(status: int, root: Path) -> None:
    """Start the clock of :data:`END_WITHIN_S` (once: a second signal changes nothing)."""
    if _HARD_END.is_set():
        return
    _HARD_END.set()

    def hard() -> None:
        _say(f"the checkers did not stop within {END_WITHIN_S:g}s of the signal; ending them")
        end_children(grace=1.0)
        end_naming(str(root), grace=1.0)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)

    timer = threading.Timer(END_WITHIN_S, hard)
    timer.daemon = True
    timer.start()
    _HARD_END_TIMERS.append(timer)


def _stand_down() -> None:
    """The clean end is over: no hard end, unless a thread the interpreter
    would wait for at exit (a checker's worker still blocked) is alive."""
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    for timer in _HARD_END_TIMERS:
        timer.cancel()
    _HARD_END_TIMERS.clear()
    _HARD_END.clear()


_HARD_END = threading.Event()
_HARD_END_TIMERS: list[threading.Timer] = []


@contextmanager
def _signals(root: Path) -> Generator[None]:
    """While the watch runs: SIGTERM raises :class:`_Terminated` in the main
    thread, Ctrl-C ``KeyboardInterrupt`` as always; either also starts the
    clock after which the watch ends hard (:data:`END_WITHIN_S`)."""

    def terminated(signum: int, frame: FrameType | None) -> None:
        _end_hard_after(0, root)
        raise _Terminated

    def interrupted(signum: int, frame: FrameType | None) -> None:
        _end_hard_after(INTERRUPTED, root)
        raise KeyboardInterrupt

    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, terminated), signal.SIGINT: signal.signal(signal.SIGINT, interrupted)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class _Session:
    """One watch: its warm checkers, its rounds."""

    def __init__(self, request: GateRequest, fmt: str, include_timings: bool) -> None:
        self.root, self.checkers, self.request = warm_rounds(request, "watch-")
        self.fmt = fmt
        self.include_timings = include_timings
        self.watched = WatchSet()
        self.worker: threading.Thread | None = None
        self.warming: threading.Thread | None = None
        self.state: Snapshot = {}

    def round(self) -> GateOutcome:
        """One check and its report on stdout."""
        from spec_protocols.gate._baseline import unused_entry_line
        from spec_protocols.gate._reports import render

        outcome = run(self.request)
        text = render(outcome.report, self.fmt, include_timings=self.include_timings)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        for entry in outcome.unused:
            _say(unused_entry_line(entry))
        return outcome

    def refresh(self, outcome: GateOutcome, before: Snapshot) -> None:
        """What to watch after ``report``, and its state as the round read it.

        A path already in ``before`` (taken before the round ran) keeps that
        state, so that an edit made while the round ran, or in the moment
        after its report, is a change for the next round; only a path the
        round brought into the watch is taken as it is now."""
        if outcome.read is not None:
            self.watched = outcome.read
        now = snapshot(self.watched)
        state = {p: before.get(p, stat) for p, stat in now.items()}
        state.update({p: stat for p, stat in before.items() if p not in now and _covers(self.watched, p)})
        self.state = state
        _say(f"watching {len(self.watched.files)} files for changes (Ctrl-C ends)")

    def checked(self) -> GateOutcome:
        """:meth:`round` in a thread of its own, waited for here: the main
        thread stays free for Ctrl-C and SIGTERM, which then stop the
        checkers under the round instead of waiting for them."""
        outcome: list[GateOutcome | BaseException] = []
        warming = self.warming

        def work() -> None:
            try:
                if warming is not None:
                    warming.join()  # the warm-up drives the same checkers: it ends first
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

    def warm_up(self, outcome: GateOutcome) -> None:
        """Start, in the background, the warm checkers the first round did not
        run (their verdicts came from the cache): a round of them alone, its
        report discarded, so that mypy's daemon, pyright's language server and
        the runtime checker's next probe are up with the plugin read when the
        first edit comes. Without it they started on that edit, and its round
        cost about a cold run (issue 29, item 10). The next round waits for it
        (:meth:`checked`): two rounds never drive one checker at once."""
        reused = [name for run in outcome.report.runs for name in run.report.reused if name in self.checkers]
        if not reused or STOPPING.is_set():
            return
        # Nothing to reuse (the cache said it all), nothing stored (the verdicts are the cache's already).
        request = replace(self.request, checkers=tuple(dict.fromkeys(reused)), cache=CachePolicy.OFF, baseline=None)

        def work() -> None:
            try:
                run(request)
            except Exception as error:  # noqa: BLE001 - a warm-up that fails leaves the round to start them
                _say(f"the warm checkers did not start in advance ({error}); the next round starts them")

        self.warming = threading.Thread(target=work, name="watch-warm-up", daemon=True)
        self.warming.start()

    def run(self) -> int:
        before = snapshot(_targets_only(self.request))
        first = self.checked()  # bad input here is one line and exit 2, as in one-shot mode
        self.warm_up(first)
        self.refresh(first, before)
        while True:
            change = wait_for_change(self.watched, self.state)
            if change is None:
                return 0
            changed, self.state = change
            _say(f"changed: {', '.join(shown(p) for p in changed[:3])}{' ...' if len(changed) > 3 else ''}")
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
        if self.fmt == "text":
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
        deadline = time.monotonic() + 60
        for worker in (self.warming, self.worker):
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
        for checker in self.checkers.values():
            checker.close()


def _say(line: str) -> None:
    sys.stderr.write(f"spec-protocols: {line}\n")
    sys.stderr.flush()


def watch(request: GateRequest, *, fmt: str = "text", include_timings: bool = True, output: Path | None = None) -> int:
    """Run ``check --watch``: rounds until Ctrl-C (exit 130) or SIGTERM (exit 0)."""
    refuse_with_watch(request, output)
    session = _Session(request, fmt, include_timings)
    try:
        with _signals(session.root):
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
        _stand_down()


@contextmanager
def _ignoring_signals() -> Generator[None]:
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
