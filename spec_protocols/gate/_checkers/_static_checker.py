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

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._checkers._interpret import Diagnostic, interpret
from spec_protocols.gate._checkers._process import Invocation
from spec_protocols.gate._harness import CheckInput, StaticInput, is_canary
from spec_protocols.gate._model import CheckerOutcome, GateError

__all__ = ["StaticChecker", "harness_diagnostics"]


#: A comment with which the author silences a checker on one line (blanked in a shadow).
_SILENCED = re.compile(r"#\s*(type:\s*ignore|pyright:\s*ignore)")


def harness_diagnostics(invocation: Invocation, static: StaticInput) -> list[Diagnostic]:
    """The checker's errors that are verdicts: those on a harness line, those
    inside an injection site's rewritten call (which belong to that site), and
    those in the plugin's modules that define checked classes (``file`` set:
    which of them are a class's is the verdict core's to say, from the class's
    own lines). Any other error inside an analysed module is not a verdict.

    A reported file is read relative to the run's work folder (mypy reports
    relative paths; pyright's are absolute)."""
    harness = static.harness_file.resolve()
    shadow = static.shadow
    own = {f.resolve() for f in static.class_files.values()}
    found: list[Diagnostic] = []
    for item in invocation.errors():
        if not item.file:
            continue
        file = static.workdir / item.file
        resolved = file.resolve()
        if resolved == harness or item.file == str(static.harness_file):
            found.append(Diagnostic(item.line, item.message, item.code))
            continue
        number = shadow.site_at(file, item.line, item.column) if shadow is not None else None
        if number is not None:
            found.append(Diagnostic(item.line, item.message, item.code, site=(number, is_canary(item.message))))
        elif resolved in own:
            found.append(Diagnostic(item.line, item.message, item.code, file=resolved))
        elif shadow is not None and (at := shadow.original(file, item.line)) is not None and not _silenced(*at):
            # A module holding a site is checked as its shadow, whose
            # silencing comments are blanked: the author's still hold here.
            found.append(Diagnostic(at[1], item.message, item.code, file=at[0]))
    return found


def _silenced(file: Path, line: int) -> bool:
    """Whether the author silenced the checkers on that line of ``file``."""
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return 0 < line <= len(lines) and _SILENCED.search(lines[line - 1]) is not None


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
