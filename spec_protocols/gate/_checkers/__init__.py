"""The checkers stage: one interface, a registry, and one module per checker.

A checker is a :class:`Checker`: it turns the harness stage's
:class:`~spec_protocols.gate._harness.CheckInput` into a
:class:`~spec_protocols.gate._model.CheckerOutcome`. Each lives in its own
module (``_runtime/``, ``_mypy/``, ``_pyright/``, ``_ty``), which owns
everything particular to it: its configuration and invocation, how it is kept
warm for the watch mode, its rank among the checkers' words and, for a static
checker, its :class:`~._dialect.Dialect` (the codes and message patterns the
shared core reads). The shared core never names a checker:

``_static_checker``     what the static checkers share: the harness required, their
                        errors read back onto the harness and the injection sites
``_interpret``          the verdict core: diagnostics on the harness -> verdicts and findings
``_class_diagnostics``  what a checker says at a checked class's own lines
``_said``               a checker's reasons, without the harness's names
``_persistent``         a static checker kept warm (the watch mode's)
``_process``            running a checker, and its raw diagnostics

The registry (:mod:`._registry`) names each checker and its module; importing
this package imports none of them (a cached run answers before any is needed).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from spec_protocols.gate._checkers._interface import Checker, WarmChecker
from spec_protocols.gate._checkers._registry import CHECKER_NAMES, CheckerName, is_default, load
from spec_protocols.gate._model import GateError

if TYPE_CHECKING:
    from spec_protocols.gate._checkers._dialect import Dialect

__all__ = [
    "CHECKERS",
    "CHECKER_NAMES",
    "DEFAULT_CHECKERS",
    "Checker",
    "CheckerName",
    "WarmChecker",
    "checker_versions",
    "checkers_named",
    "default_checkers",
    "default_names",
    "dialect_of",
    "lead_order",
]


class _Registry(Mapping[str, "Checker"]):
    """name -> checker, in report order; each checker's module imported when first asked for."""

    def __getitem__(self, name: str) -> Checker:
        if name not in CHECKER_NAMES:
            raise KeyError(name)
        return load(name)

    def __iter__(self) -> Iterator[str]:
        return iter(CHECKER_NAMES)

    def __len__(self) -> int:
        return len(CHECKER_NAMES)


#: name -> checker, in report order (:data:`CHECKER_NAMES`).
CHECKERS: Mapping[str, Checker] = _Registry()


def default_names() -> tuple[str, ...]:
    """The checkers a run uses when none is named, in report order."""
    return tuple(name for name in CHECKER_NAMES if is_default(name))


def default_checkers() -> tuple[Checker, ...]:
    """The registry's default checkers (:func:`default_names`)."""
    return tuple(CHECKERS[name] for name in default_names())


def checkers_named(names: Iterable[str], registry: Mapping[str, Checker] | None = None) -> tuple[Checker, ...]:
    """The checkers of ``names`` in ``registry`` (default: :data:`CHECKERS`),
    each once, in the registry's order; a :class:`GateError` for a name it
    does not know."""
    known = CHECKERS if registry is None else registry
    wanted = list(names)
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise GateError(f"unknown checker {unknown[0]!r}; choose from {', '.join(known)}")
    return tuple(checker for name, checker in known.items() if name in wanted)


def dialect_of(name: str) -> Dialect:
    """The dialect of the registered static checker ``name``."""
    dialect = CHECKERS[name].dialect
    if dialect is None:
        raise GateError(f"the {name} checker reads no harness: it has no dialect")
    return dialect


def lead_order(names: Iterable[str]) -> list[str]:
    """``names`` by their checkers' ranks (whose words lead); a name the
    registry does not know last, by name."""
    unique = sorted(set(names))
    known = {name: CHECKERS[name].rank for name in unique if name in CHECKER_NAMES}
    return sorted(unique, key=lambda name: (name not in known, known.get(name, 0), name))


def checker_versions(names: Iterable[str] | None = None) -> dict[str, str]:
    """``{name: version}`` for the named checkers (default: the defaults)."""
    return {name: CHECKERS[name].version() for name in (default_names() if names is None else names)}


if TYPE_CHECKING:
    #: The registry's default checkers (:func:`default_checkers`), loaded when first asked for.
    DEFAULT_CHECKERS: tuple[Checker, ...]
else:

    def __getattr__(name: str) -> object:
        # The default checkers as a value, loaded when first asked for.
        if name == "DEFAULT_CHECKERS":
            return default_checkers()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
