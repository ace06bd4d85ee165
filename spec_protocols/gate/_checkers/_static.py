"""What the two static checkers share around their own invocation.

mypy and pyright each write their own configuration and read their own
output (:mod:`~spec_protocols.gate._checkers._mypy`,
:mod:`~spec_protocols.gate._checkers._pyright`); everything else is one
piece of code: both need the harness, both report an error either on a
harness line or inside the rewritten call of an injection site (in its
shadow module), and both are judged by
:func:`~spec_protocols.gate._checkers._interpret.interpret`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spec_protocols.gate._checkers._interpret import Diagnostic, interpret
from spec_protocols.gate._checkers._process import Invocation
from spec_protocols.gate._harness import CheckInput, StaticInput, is_canary
from spec_protocols.gate._model import CheckerOutcome, GateError

__all__ = ["StaticChecker", "harness_diagnostics"]


def harness_diagnostics(invocation: Invocation, static: StaticInput) -> list[Diagnostic]:
    """The checker's errors that are verdicts: those on a harness line, and
    those inside an injection site's rewritten call (which belong to that
    site). Any other error inside an analysed module is not a verdict.

    A reported file is read relative to the run's work folder (mypy reports
    relative paths; pyright's are absolute)."""
    harness = static.harness_file.resolve()
    shadow = static.shadow
    found: list[Diagnostic] = []
    for item in invocation.errors():
        if not item.file:
            continue
        file = static.workdir / item.file
        if file.resolve() == harness or item.file == str(static.harness_file):
            found.append(Diagnostic(item.line, item.message, item.code))
        elif shadow is not None:
            number = shadow.site_at(file, item.line, item.column)
            if number is not None:
                found.append(Diagnostic(item.line, item.message, item.code, site=(number, is_canary(item.message))))
    return found


@dataclass(frozen=True)
class StaticChecker:
    """A checker that reads the harness: it runs no target code. What makes
    it mypy or pyright is its name, its version and how it is invoked (its
    configuration written into the run's work folder, then its output read)."""

    name: str
    #: The version that gives its verdicts (a checker upgrade changes verdicts).
    version_of: Callable[[], str]
    invoke: Callable[[CheckInput, StaticInput], Invocation]
    @property
    def reads_harness(self) -> bool:
        return True

    @property
    def imports_target(self) -> bool:
        return False

    def version(self) -> str:
        return self.version_of()

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        static = check_input.static
        if static is None:
            raise GateError(f"{self.name} needs the harness, and none was prepared")
        invocation = self.invoke(check_input, static)
        diagnostics = harness_diagnostics(invocation, static)
        return interpret(self.name, static.harness, diagnostics, seconds=invocation.seconds, shadow=static.shadow)
