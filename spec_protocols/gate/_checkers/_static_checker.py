"""What the static checkers share around their own invocation.

Each static checker writes its own configuration and reads its own output (in
its module); everything else is one piece of code: each needs the harness,
each reports an error either on a harness line or inside the rewritten call of
an injection site (in its shadow module), and each is judged by
:func:`~spec_protocols.gate._checkers._interpret.interpret` in its own
:class:`~spec_protocols.gate._checkers._dialect.Dialect`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._checkers._dialect import Dialect
from spec_protocols.gate._checkers._interpret import Diagnostic, interpret
from spec_protocols.gate._checkers._persistent import Backend, PersistentChecker
from spec_protocols.gate._checkers._process import Invocation
from spec_protocols.gate._harness import CheckInput, StaticInput, is_canary
from spec_protocols.gate._model import CheckerOutcome, GateError

__all__ = ["Invoke", "StaticChecker", "harness_diagnostics"]

#: How a static checker is run on a prepared harness: one-shot, or by a warm backend.
Invoke = Callable[[CheckInput, StaticInput], Invocation]


def harness_diagnostics(invocation: Invocation, static: StaticInput, dialect: Dialect) -> list[Diagnostic]:
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
        elif shadow is not None and (at := shadow.original(file, item.line)) is not None and not _silenced(*at, dialect):
            # A module holding a site is checked as its shadow, whose
            # silencing comments are blanked: the author's still hold here.
            found.append(Diagnostic(at[1], item.message, item.code, file=at[0]))
    return found


def _silenced(file: Path, line: int, dialect: Dialect) -> bool:
    """Whether the author silenced the checker on that line of ``file``."""
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return 0 < line <= len(lines) and dialect.line_silence.search(lines[line - 1]) is not None


@dataclass(frozen=True)
class StaticChecker:
    """A checker that reads the harness: it runs no target code. What makes
    it mypy or pyright is its name, its dialect, its version and how it is
    invoked (its configuration written into the run's work folder, then its
    output read), one-shot or by a backend kept warm."""

    name: str
    label: str
    rank: int
    dialect: Dialect
    #: The version that gives its verdicts, and whether a distribution decides it.
    version_of: Callable[[], tuple[str, bool]]
    invoke: Invoke
    #: The watch mode's backend for one work folder (None: it runs one-shot there too).
    backend: Callable[[Path], Backend] | None = None
    #: The settings with which the checker itself (an IDE's, CI's) reads the
    #: protocols' release constants as given, in a style (``ini``,
    #: ``pyproject``): ``spec-protocols pin``. None: it has no such setting.
    pin: Callable[[Mapping[str, bool], str], str] | None = None

    @property
    def reads_harness(self) -> bool:
        return True

    @property
    def imports_target(self) -> bool:
        return False

    def version(self) -> str:
        return self.version_of()[0]

    def distributed(self) -> bool:
        return self.version_of()[1]

    def run(self, check_input: CheckInput) -> CheckerOutcome:
        return self.judge(check_input, self.invoke)

    def judge(self, check_input: CheckInput, invoke: Invoke) -> CheckerOutcome:
        """The verdicts of one invocation (``invoke``: one-shot or warm) on ``check_input``'s harness."""
        static = check_input.static
        if static is None:
            raise GateError(f"{self.name} needs the harness, and none was prepared")
        invocation = invoke(check_input, static)
        diagnostics = harness_diagnostics(invocation, static, self.dialect)
        return interpret(self.name, self.dialect, static.harness, diagnostics, seconds=invocation.seconds, shadow=static.shadow)

    def warm(self, root: Path) -> PersistentChecker:
        return PersistentChecker(self, self.backend, root)
