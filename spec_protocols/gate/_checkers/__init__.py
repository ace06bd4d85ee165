"""The checkers stage: one interface, three adapters, one registry.

Each adapter is a :class:`Checker`: a name, its version, and one ``run`` from
the harness stage's :class:`~spec_protocols.gate._harness.CheckInput` to a
:class:`~spec_protocols.gate._model.CheckerOutcome`. The pipeline, the CLI's
``--checker`` names, the pytest plugin, the tests and the benchmarks all go
through :data:`CHECKERS` (and the adapters' ``invoke_mypy`` /
``invoke_pyright`` for their own configurations); ``run_gate`` takes checker
objects (:data:`DEFAULT_CHECKERS`, or :func:`checkers_named`, or fakes).

``_process``    running a checker, and its raw diagnostics
``_interpret``  reading the harness: diagnostics -> verdicts, for mypy and pyright alike
``_said``       what a checker said, without the harness's own names
``_class_diagnostics``  what a checker says at a checked class's own lines in the
                plugin's source, and the constructs no checker models
``_static``     what mypy and pyright share: the harness required, their errors
                read back onto the harness and the injection sites
``_mypy``       configuration and ``--output json``
``_pyright``    configuration and ``--outputjson``
``_runtime``    imports the target in a subprocess (``_runtime_probe``) and runs
                ``verify_conformance`` / ``validate_draft_worker_cls``
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from typing_extensions import Protocol

from spec_protocols.gate._checkers._mypy import MYPY
from spec_protocols.gate._checkers._pyright import PYRIGHT
from spec_protocols.gate._checkers._runtime import RUNTIME
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CHECKER_NAMES, CheckerOutcome, GateError

__all__ = ["CHECKERS", "DEFAULT_CHECKERS", "Checker", "checker_versions", "checkers_named"]


class Checker(Protocol):
    """A checker adapter: its ``name`` (what reports and ``--checker`` use),
    whether it ``reads_harness`` (the static checkers need the generated
    harness) and whether it ``imports_target`` (it runs target code, which
    ``--no-import`` refuses), the ``version()`` that gives its verdicts (a
    checker upgrade changes verdicts), and ``run``: verdicts for every check
    and injection site of the input."""

    @property
    def name(self) -> str: ...
    @property
    def reads_harness(self) -> bool: ...
    @property
    def imports_target(self) -> bool: ...
    def version(self) -> str: ...
    def run(self, check_input: CheckInput) -> CheckerOutcome: ...


#: name -> adapter, in the order reports list checkers (CHECKER_NAMES).
CHECKERS: Mapping[str, Checker] = {checker.name: checker for checker in (RUNTIME, MYPY, PYRIGHT)}

#: Every checker of the registry, in report order: what ``run_gate`` runs by default.
DEFAULT_CHECKERS: tuple[Checker, ...] = tuple(CHECKERS.values())


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


def checker_versions(names: tuple[str, ...] = CHECKER_NAMES) -> dict[str, str]:
    """``{name: version}`` for the named checkers."""
    return {name: CHECKERS[name].version() for name in names}
