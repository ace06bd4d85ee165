"""The replay checker: sglang's call sequence replayed on what the plugin registers, on the CPU.

It registers the plugin as sglang does, asks the registration for its worker
class as the scheduler does, builds it with the scheduler's call and stand-ins
for sglang's side (:mod:`._standins`), and fetches and binds every member
sglang uses on the instance it built (:mod:`._instance`); a break at the
boundary between the two fails the class, an exception inside either side's
own code stops the replay there (:mod:`._boundary`). The replay runs in a
process of its own (:mod:`._driver`), as the runtime checker's probe does.
"""

from __future__ import annotations

from pathlib import Path

from spec_protocols.gate._checkers._interface import StandsFor
from spec_protocols.gate._checkers._replay._oneshot import LABEL, NAME, ReplayChecker
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CheckerOutcome

__all__ = ["CHECKER", "LABEL", "NAME", "REPLAY", "ReplayChecker"]


class _EachRound(StandsFor[ReplayChecker]):
    """The replay in the watch mode: a fresh driver each round (an import cannot be undone in a process)."""

    def __init__(self, one_shot: ReplayChecker) -> None:
        self.one_shot = one_shot

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        return self.one_shot.run(check_input)

    def warm(self, root: Path) -> _EachRound:
        return self

    def close(self) -> None:
        pass


class _Replay(ReplayChecker):
    def warm(self, root: Path) -> _EachRound:
        return _EachRound(self)


CHECKER = REPLAY = _Replay()
