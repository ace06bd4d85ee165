"""What a checker reports in the plugin's own source, and what no checker models.

Two readings the verdict core (:mod:`~spec_protocols.gate._checkers._interpret`)
applies to every class after reading the harness:

* :func:`class_findings`: the checker's own errors at the class's own lines
  (its statement and decorators, its members' definitions, its class-level
  statements, the whole of its constructor; see
  :mod:`spec_protocols.gate._harness._regions`) are the class's problems, at
  those lines. Errors inside its other member bodies are counted in a note.
  Never the class's: an import (a third-party module the plugin uses, seen or
  not), a comparison with a base's declaration (an override that is not the
  base's signature: what sglang calls is judged by the protocol, member by
  member, on the harness), and a missing annotation (typing hygiene).
* :func:`unmodelled`: a finding that comes from a construct the checker cannot
  model, recognized from the source: attrs' generated ``__init__``, a
  ``functools.cached_property`` or ``functools.partialmethod`` read as its
  descriptor, a member a
  ``__getattr__`` gives an instance. Such a finding is a blind spot, never a
  failure, and the gate passes the check when another checker passes it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from typing_extensions import Protocol

from spec_protocols.gate._checkers._dialect import Dialect
from spec_protocols.gate._findings import BodyDiagnostics, ClassDiagnostic, Finding, Wrong
from spec_protocols.gate._harness import ClassRegions
from spec_protocols.gate._model import DiscoveredClass

__all__ = ["class_findings", "unmodelled"]

class Diagnostic(Protocol):
    """What is read of a checker's diagnostic here (the verdict core's ``Diagnostic``)."""

    @property
    def line(self) -> int: ...
    @property
    def message(self) -> str: ...
    @property
    def code(self) -> str | None: ...
    @property
    def file(self) -> Path | None: ...


def _counts(diag: Diagnostic, regions: ClassRegions, dialect: Dialect) -> bool:
    """Whether a diagnostic in the class's lines is the class's at all: never
    an import (a third-party module the plugin uses, seen or not), an override
    compared with a base's declaration, typing hygiene, the application of
    spec_protocols' own class decorators (the IDE's view of the pinned
    release, not the class's problem on the release checked: the harness
    judges that), or an assignment to a name a base declares."""
    assert diag.file is not None
    code, text = diag.code, diag.message
    if dialect.import_error.says(code, text) or dialect.override.says(code, text) or dialect.hygiene.says(code, text):
        return False
    if dialect.decorator_application.says(code, text) and regions.applies_own_decorator(diag.file, diag.line):
        return False
    return not (dialect.assignment.says(code, text) and regions.assigns_inherited(diag.file, diag.line))


def _lines_of(message: str) -> tuple[str, ...]:
    lines = tuple(line.strip() for line in message.strip().splitlines() if line.strip() not in ("", "..."))
    return lines or (message.strip(),)


def _of_another_class(diag: Diagnostic, short: str | None, dialect: Dialect) -> bool:
    """Whether the diagnostic says another class (sglang's, read through
    stubs that may not list every attribute) has no such member."""
    found = dialect.no_attribute.search(diag.message)
    if found is None:
        return False
    named = (found.group("owner") or "").rpartition(".")[2]
    return named != short


def class_findings(
    checker: str, dialect: Dialect, regions: ClassRegions | None, diagnostics: Sequence[Diagnostic], short: str | None = None
) -> tuple[list[ClassDiagnostic], list[BodyDiagnostics]]:
    """The findings at the class's own lines, and the note counting the
    errors inside its other member bodies (none: an empty list). ``short``:
    the class's own name; an attribute another class lacks (sglang's, read
    through stubs that may not list it) is counted in the note, not a finding."""
    if regions is None:
        return [], []
    found: list[ClassDiagnostic] = []
    in_bodies = 0
    for diag in diagnostics:
        if diag.file is None:
            continue
        place = regions.place(diag.file, diag.line)
        if place is None or not _counts(diag, regions, dialect):
            continue
        kind, member = place
        if kind == "body" or _of_another_class(diag, short, dialect):
            in_bodies += 1
            continue
        found.append(ClassDiagnostic(checker, member, diag.file, diag.line, _lines_of(diag.message), diag.code))
    notes = [BodyDiagnostics(checker, in_bodies)] if in_bodies else []
    return found, notes


# -- what a checker cannot model ---------------------------------------------

_ATTRS = "sglang builds it through the __init__ attrs generates from its fields, and the checker is not given attrs here"
_CACHED = "it is a functools.cached_property, which the checker reads as the descriptor, not as the value an instance gives"
_PARTIAL = "it is a functools.partialmethod, which the checker reads as the descriptor, not as the method an instance binds"
_GETATTR = "the class's __getattr__ gives it to an instance (sglang reads it on the instance), which the checker cannot follow"
#: The findings about the class's construction.
_CONSTRUCTION = frozenset({Wrong.CONSTRUCTOR, Wrong.FACTORY})
#: A factory finding about what the class builds (not a keyword the call passes).
_BUILDS_WORDS = re.compile(r"return type|incompatible with (?:type|protocol)")


def _delegated(cls: DiscoveredClass) -> str:
    delegation = cls.delegation
    assert delegation is not None
    held = delegation.holds.rpartition(".")[2]
    return (
        f"the class's __getattr__ gives it from self.{delegation.attribute} (a {held}, which has it), "
        "and the checker does not follow __getattr__ to check its type"
    )


#: A finding the source itself answers: the member is there, and only its presence is asked.
_ANSWERED = ""


def _why(
    finding: Finding, cls: DiscoveredClass | None, regions: ClassRegions | None, presence_only: frozenset[str] = frozenset()
) -> str | None:
    """Why ``finding`` is a construct the checker cannot model (None: it is
    not; :data:`_ANSWERED`: the source shows the member is there, and
    presence is all that is asked of it)."""
    if regions is not None and regions.attrs and finding.wrong in _CONSTRUCTION:
        return _ATTRS
    member = finding.member
    if regions is not None and member in regions.cached_properties and finding.wrong in (Wrong.TYPE, Wrong.MISMATCH):
        if any("cached_property" in r for r in finding.reasons):
            return _CACHED
    if regions is not None and member in regions.partial_methods:
        return _PARTIAL
    if cls is None or cls.definition("__getattr__") is None:
        return None
    if finding.wrong is Wrong.MISSING and cls.definition(member) is None:
        if cls.delegation is not None and member in cls.delegation.members:
            return _ANSWERED if member in presence_only else _delegated(cls)
        return _GETATTR
    if finding.wrong is Wrong.FACTORY and any(_BUILDS_WORDS.search(r) for r in finding.reasons):
        return _GETATTR
    return None


def unmodelled(
    findings: Sequence[Finding],
    cls: DiscoveredClass | None,
    regions: ClassRegions | None,
    presence_only: frozenset[str] = frozenset(),
) -> list[Finding]:
    """``findings``, each one that comes from a construct the checker cannot
    model made an :attr:`Wrong.UNMODELLED` blind spot with its reason. A
    member held to its presence only (``presence_only``) that a delegating
    ``__getattr__`` gives is there: its finding is dropped."""
    out: list[Finding] = []
    for finding in findings:
        why = _why(finding, cls, regions, presence_only)
        if why == _ANSWERED:
            continue
        if why is None:
            out.append(finding)
        else:
            # attrs' __init__ is the class's own, written by its decorator:
            # reported at the class, not at a base's __init__.
            member = None if why is _ATTRS else finding.member
            out.append(replace(finding, wrong=Wrong.UNMODELLED, member=member, detail=why))
    return out
