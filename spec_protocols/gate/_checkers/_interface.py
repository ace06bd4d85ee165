"""What every checker is: the interface the pipeline, the watch mode and the cache use, and nothing else of a checker."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from typing_extensions import Protocol

if TYPE_CHECKING:
    from spec_protocols.gate._checkers._dialect import Dialect
    from spec_protocols.gate._harness import CheckInput
    from spec_protocols.gate._model import CheckerOutcome

__all__ = ["Checker", "WarmChecker"]


class Checker(Protocol):
    """A checker: what reports and ``--checker`` call it, how its messages
    name it, what it needs and does, its version, and ``run``: verdicts for
    every check and injection site of the input."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str:
        """How a sentence names it ("mypy", "the runtime checker")."""
        ...
    @property
    def rank(self) -> int:
        """Whose words lead where a view shows one problem: the lowest rank
        (the checker whose reasons are the most specific)."""
        ...
    @property
    def reads_harness(self) -> bool:
        """It needs the generated harness (a static checker)."""
        ...
    @property
    def imports_target(self) -> bool:
        """It runs target code, which ``--no-import`` refuses."""
        ...
    @property
    def dialect(self) -> Dialect | None:
        """What its diagnostics mean to the shared core (static checkers)."""
        ...
    @property
    def pin(self) -> Callable[[Mapping[str, bool], str], str] | None:
        """Its own settings that read the protocols' release constants as given,
        in a style (``ini``, ``pyproject``); None: it has none (``spec-protocols pin``)."""
        ...
    def version(self) -> str:
        """The version that gives its verdicts (a checker upgrade changes verdicts)."""
        ...
    def distributed(self) -> bool:
        """Whether an installed distribution decides :meth:`version` (the run
        memo's key lists the distributions; a checker found elsewhere keeps no memo)."""
        ...
    def run(self, check_input: CheckInput) -> CheckerOutcome: ...
    def warm(self, root: Path) -> WarmChecker:
        """The checker as the watch mode runs it, round after round, its
        processes below ``root``: the same verdicts as :meth:`run`."""
        ...


class WarmChecker(Checker, Protocol):
    """A checker of the watch mode: it holds processes between rounds, which ``close`` ends."""

    def close(self) -> None: ...
