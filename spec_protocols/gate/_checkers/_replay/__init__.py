"""The replay checker: sglang's call sequence replayed on what the plugin registers, on the CPU.

It registers the plugin as sglang does, asks the registration for its worker
class as the scheduler does, builds it with the scheduler's call and stand-ins
for sglang's side (:mod:`._standins`), and fetches and binds every member
sglang uses on the instance it built (:mod:`._instance`); a break at the
boundary between the two fails the class, an exception inside either side's
own code stops the replay there (:mod:`._boundary`). The replay runs in a
process of its own (:mod:`._driver`), as the runtime checker's probe does;
in the watch mode, that process is started a round ahead.
"""

from __future__ import annotations

from pathlib import Path

from spec_protocols.gate._checkers._interface import StandsFor
from spec_protocols.gate._checkers._persistent import STOPPING
from spec_protocols.gate._checkers._replay._replay_oneshot import LABEL, NAME, ReplayChecker, StartedDriver
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CheckerOutcome

__all__ = ["CHECKER", "LABEL", "NAME", "REPLAY", "ReplayChecker"]


class _WarmReplay(StandsFor[ReplayChecker]):
    """The replay in the watch mode: a fresh driver each round (an import
    cannot be undone in a process), started a round ahead, so that it has
    imported sglang by the time the author's next edit arrives."""

    def __init__(self, one_shot: ReplayChecker, root: Path) -> None:
        self.one_shot = one_shot
        self.root = root
        self.next: StartedDriver | None = None
        self.rounds = 0
        self.prepare()

    def prepare(self) -> None:
        """Start the next round's driver, unless one waits or the watch is ending."""
        if self.next is None and not STOPPING.is_set():
            self.rounds += 1
            folder = self.root / f"replay-{self.rounds}"
            folder.mkdir(parents=True, exist_ok=True)
            self.next = StartedDriver(folder)

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        started, self.next = self.next, None
        self.prepare()  # the round after this one's, importing while this one runs
        if started is not None and not started.same_environment():
            started.end()
            started = None
        return self.one_shot.run(check_input, started)

    def warm(self, root: Path) -> _WarmReplay:
        return self

    def close(self) -> None:
        started, self.next = self.next, None
        if started is not None:
            started.end()


class _Replay(ReplayChecker):
    def warm(self, root: Path) -> _WarmReplay:
        return _WarmReplay(self, root)


CHECKER = REPLAY = _Replay()
