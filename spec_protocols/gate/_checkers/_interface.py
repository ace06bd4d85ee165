"""What every checker is: the interface the pipeline, the watch mode and the cache use, and nothing else of a checker."""

from __future__ import annotations

import platform
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from typing_extensions import Protocol, Self

if TYPE_CHECKING:
    from spec_protocols.gate._checkers._dialect import Dialect
    from spec_protocols.gate._harness import CheckInput
    from spec_protocols.gate._model import CheckerOutcome

__all__ = ["Checker", "Identity", "StandsFor", "ThisPackage", "WarmChecker"]


class Identity(Protocol):
    """What reports, cache keys and messages read of a checker: its name, how
    a sentence names it, what it needs and does, its version."""

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


class Checker(Identity, Protocol):
    """A checker: its identity, and ``run``: verdicts for every check and injection site of the input."""

    def run(self, check_input: CheckInput) -> CheckerOutcome: ...
    def warm(self, root: Path) -> WarmChecker:
        """The checker as the watch mode runs it, round after round, its
        processes below ``root``: the same verdicts as :meth:`run`."""
        ...


class WarmChecker(Checker, Protocol):
    """A checker of the watch mode: it holds processes between rounds, which ``close`` ends."""

    def close(self) -> None: ...


class ThisPackage:
    """The identity shared by the checkers this package is itself (the runtime
    and the replay checker): they import the target and read no harness, have
    no dialect and no pin, and this package's version, run by this
    interpreter, is theirs."""

    reads_harness = False
    imports_target = True
    dialect = None
    pin = None

    def version(self) -> str:
        return _this_package_version()

    def distributed(self) -> bool:
        return True  # this package's own version, which the installed distributions list


@cache
def _this_package_version() -> str:
    from spec_protocols import __version__

    return f"{__version__} (Python {platform.python_version()})"


_I = TypeVar("_I", bound=Identity)
_T = TypeVar("_T")


class _OneShots(Generic[_T]):
    """A member of :class:`StandsFor` that reads its one-shot checker's member
    of the same name, each time it is read (so a one-shot checker's identity
    is never copied, and never stale)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type) -> Self: ...
    @overload
    def __get__(self, instance: StandsFor[Any], owner: type) -> _T: ...
    def __get__(self, instance: StandsFor[Any] | None, owner: type) -> Self | _T:
        if instance is None:
            return self
        value: _T = getattr(instance.one_shot, self._name)
        return value


class StandsFor(Generic[_I]):
    """A warm checker's identity, its one-shot checker's (``self.one_shot``):
    the same name, version and everything else a report or a cache key reads,
    so that neither can tell the two apart."""

    one_shot: _I

    name: _OneShots[str] = _OneShots()
    label: _OneShots[str] = _OneShots()
    rank: _OneShots[int] = _OneShots()
    pin: _OneShots[Callable[[Mapping[str, bool], str], str] | None] = _OneShots()
    reads_harness: _OneShots[bool] = _OneShots()
    imports_target: _OneShots[bool] = _OneShots()

    # A property, not a _OneShots: a warm static checker narrows it (it has a dialect).
    @property
    def dialect(self) -> Dialect | None:
        return self.one_shot.dialect

    def version(self) -> str:
        return self.one_shot.version()

    def distributed(self) -> bool:
        return self.one_shot.distributed()
