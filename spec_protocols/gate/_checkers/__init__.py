"""The checkers stage: one interface, three adapters, one registry.

Each adapter is a :class:`Checker`: a name, its version, and one ``run`` from
the harness stage's :class:`~spec_protocols.gate._harness.CheckInput` to a
:class:`~spec_protocols.gate._model.CheckerOutcome`. The pipeline, the CLI's
``--checker`` names, the pytest plugin, the tests and the benchmarks all go
through :data:`CHECKERS` (and the adapters' ``invoke_mypy`` /
``invoke_pyright`` for their own configurations).

``_process``    running a checker, and its raw diagnostics
``_interpret``  reading the harness: diagnostics -> verdicts, for mypy and pyright alike
``_mypy``       configuration and ``--output json``
``_pyright``    configuration and ``--outputjson``
``_runtime``    imports the target in a subprocess (``_runtime_probe``) and runs
                ``verify_conformance`` / ``validate_draft_worker_cls``
"""

from __future__ import annotations

from collections.abc import Mapping

from typing_extensions import Protocol

from spec_protocols.gate._checkers._mypy import MYPY
from spec_protocols.gate._checkers._pyright import PYRIGHT
from spec_protocols.gate._checkers._runtime import RUNTIME
from spec_protocols.gate._harness import CheckInput
from spec_protocols.gate._model import CHECKER_NAMES, CheckerOutcome

__all__ = ["CHECKERS", "Checker", "checker_versions"]


class Checker(Protocol):
    """A checker adapter."""

    @property
    def name(self) -> str:
        """The name reports and ``--checker`` use."""
        ...

    @property
    def reads_harness(self) -> bool:
        """Whether it needs the generated harness (the static checkers)."""
        ...

    @property
    def imports_target(self) -> bool:
        """Whether it runs target code (``--no-import`` refuses it)."""
        ...

    def version(self) -> str:
        """The version that gives its verdicts (a checker upgrade changes verdicts)."""
        ...

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        """Verdicts for every check and injection site of the input."""
        ...


#: name -> adapter, in the order reports list checkers (CHECKER_NAMES).
CHECKERS: Mapping[str, Checker] = {checker.name: checker for checker in (RUNTIME, MYPY, PYRIGHT)}


def checker_versions(names: tuple[str, ...] = CHECKER_NAMES) -> dict[str, str]:
    """``{name: version}`` for the named checkers."""
    return {name: CHECKERS[name].version() for name in names}
