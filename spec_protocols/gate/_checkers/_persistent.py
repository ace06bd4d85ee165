"""A static checker kept warm between the watch mode's rounds.

A :class:`PersistentChecker` stands for the one-shot static checker it wraps
(same name, same version, so neither the verdict cache nor a report can tell
them apart); only the invocation differs. The harness the pipeline prepared
(in a fresh folder each run) is copied into the session's own folder, whose
paths stay the same from round to round, so that the checker's backend (its
daemon or language server, from its own module) sees the same files change
rather than new ones appear; the one-shot checker's own judgement reads what
it said. When the backend fails, the round falls back to the one-shot run,
with a line on stderr: never a weaker check, only a slower one.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from typing import TYPE_CHECKING

from spec_protocols.gate._checkers._interface import Identity, StandsFor
from spec_protocols.gate._checkers._process import Invocation
from spec_protocols.gate._harness import CheckInput, StaticInput
from spec_protocols.gate._model import CheckerCrashed, CheckerOutcome, GateError

if TYPE_CHECKING:
    from spec_protocols.gate._checkers._dialect import Dialect

__all__ = ["STOPPING", "Backend", "OneShot", "PersistentChecker"]

#: Set when the watch is ending: a warm checker that fails then (its server
#: was just stopped) raises, rather than falling back to a one-shot run.
STOPPING = threading.Event()


class Backend(Protocol):
    """A warm checker for one work folder."""

    def invoke(self, check_input: CheckInput, static: StaticInput) -> Invocation: ...
    def close(self) -> None: ...


class OneShot(Identity, Protocol):
    """The static checker a :class:`PersistentChecker` stands for: its identity, and its judgement of an invocation."""

    @property
    def dialect(self) -> Dialect: ...
    def run(self, check_input: CheckInput) -> CheckerOutcome: ...
    def judge(self, check_input: CheckInput, invoke: Callable[[CheckInput, StaticInput], Invocation]) -> CheckerOutcome: ...


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
class PersistentChecker(StandsFor[OneShot]):
    """A static checker kept warm; one backend per group of targets (none:
    the checker has no warm form, and each round runs it one-shot)."""

    one_shot: OneShot
    make_backend: Callable[[Path], Backend] | None
    #: The session's private folder; each group's work folder is below it.
    root: Path
    backends: dict[Path, Backend] = field(default_factory=dict[Path, Backend])

    @property
    def dialect(self) -> Dialect:
        return self.one_shot.dialect

    def warm(self, root: Path) -> PersistentChecker:
        return self

    def _workdir(self, check_input: CheckInput) -> Path:
        """The work folder of this input's group: targets checked apart (two
        files of one module name) are a group each, with a checker each."""
        key = "\0".join(str(p) for p in check_input.discovery.search_roots)
        folder = self.root / f"{self.name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        static = check_input.static
        if static is None or self.make_backend is None:
            return self.one_shot.run(check_input)
        workdir = self._workdir(check_input)
        backend = self.backends.get(workdir)
        if backend is None:
            backend = self.backends[workdir] = self.make_backend(workdir)
        rebased = replace(check_input, static=_rebased(static, workdir))
        try:
            return self.one_shot.judge(rebased, backend.invoke)
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

    def close(self) -> None:
        backends, self.backends = list(self.backends.values()), {}
        for backend in backends:
            backend.close()
