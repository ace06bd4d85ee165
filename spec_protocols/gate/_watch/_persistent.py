"""Checker adapters whose checker stays warm between the watch mode's rounds.

A :class:`PersistentChecker` is a :class:`~spec_protocols.gate._checkers.Checker`
like the one-shot adapter it stands for (same name, same version, so the
verdict cache and the reports cannot tell them apart), handed to
:func:`~spec_protocols.gate._pipeline.run_gate` in its place. Only the
invocation differs: the harness the pipeline prepared (in a fresh folder
each run) is copied into the session's own folder, whose paths stay the
same from round to round, so that the daemon or language server
(:mod:`._mypy_daemon`, :mod:`._pyright_server`) sees the same files change
rather than new ones appear; its diagnostics are then read back and judged
by the one-shot path's own functions (``harness_diagnostics``,
``interpret``).

When the warm checker fails (a daemon that crashes, a server that dies),
the round falls back to the one-shot adapter, with a line on stderr: never
a weaker check, only a slower one; the next round starts it again.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from spec_protocols.gate._checkers import Checker
from spec_protocols.gate._checkers._interpret import interpret
from spec_protocols.gate._checkers._process import Invocation
from spec_protocols.gate._checkers._static_checker import harness_diagnostics
from spec_protocols.gate._harness import CheckInput, StaticInput
from spec_protocols.gate._model import CheckerCrashed, CheckerOutcome, GateError

__all__ = ["STOPPING", "Backend", "PersistentChecker"]

#: Set when the watch is ending: a warm checker that fails then (its server
#: was just stopped) raises, rather than falling back to a one-shot run.
STOPPING = threading.Event()


class Backend(Protocol):
    """A warm checker for one work folder."""

    def invoke(self, check_input: CheckInput, static: StaticInput) -> Invocation: ...
    def close(self) -> None: ...


def _rebased(static: StaticInput, workdir: Path) -> StaticInput:
    """``static`` with its harness in ``workdir`` (written only when its text changed)."""
    harness_file = workdir / static.harness_file.name
    text = static.harness.text
    try:
        current = harness_file.read_text(encoding="utf-8")
    except OSError:
        current = None
    if current != text:
        harness_file.write_text(text, encoding="utf-8")
    return replace(static, harness_file=harness_file, workdir=workdir)


@dataclass
class PersistentChecker:
    """A static checker kept warm; one backend per group of targets."""

    one_shot: Checker
    make_backend: Callable[[Path], Backend]
    #: The session's private folder; each group's work folder is below it.
    root: Path
    backends: dict[Path, Backend] = field(default_factory=dict[Path, Backend])

    @property
    def name(self) -> str:
        return self.one_shot.name

    @property
    def reads_harness(self) -> bool:
        return True

    @property
    def imports_target(self) -> bool:
        return False

    def version(self) -> str:
        return self.one_shot.version()

    def _workdir(self, check_input: CheckInput) -> Path:
        """The work folder of this input's group: targets checked apart (two
        files of one module name) are a group each, with a checker each."""
        key = "\0".join(str(p) for p in check_input.discovery.search_roots)
        folder = self.root / f"{self.name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        static = check_input.static
        if static is None:
            raise GateError(f"{self.name} needs the harness, and none was prepared")
        workdir = self._workdir(check_input)
        backend = self.backends.get(workdir)
        if backend is None:
            backend = self.backends[workdir] = self.make_backend(workdir)
        rebased = _rebased(static, workdir)
        try:
            invocation = backend.invoke(check_input, rebased)
        except (CheckerCrashed, GateError) as error:
            if STOPPING.is_set():
                raise
            backend.close()
            self.backends.pop(workdir, None)
            print(
                f"spec-protocols: the warm {self.name} failed ({error}); this round runs it one-shot",
                file=sys.stderr,
                flush=True,
            )
            return self.one_shot.run(check_input)
        diagnostics = harness_diagnostics(invocation, rebased)
        return interpret(self.name, rebased.harness, diagnostics, seconds=invocation.seconds, shadow=rebased.shadow)

    def close(self) -> None:
        backends, self.backends = list(self.backends.values()), {}
        for backend in backends:
            backend.close()
