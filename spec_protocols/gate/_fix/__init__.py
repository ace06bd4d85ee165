"""``spec-protocols fix``: the gate's findings made into edits of the plugin's own files.

A run checks the targets, plans an edit for each finding that says mechanically
what to change (:mod:`._wanted` reads what it expects; :mod:`._edits` makes
the edit with LibCST), shows them as a unified diff or writes them, and then
checks again and says what is left. It never touches a file outside the
targets (sglang's ``CustomSpecAlgo`` is reported, not edited), never writes a
file whose new text does not parse, and leaves every finding it has no edit
for (a type, a property with a setter that sglang calls) to the author, listed.

The rooms: ``_wanted`` (a finding's expected signature, parsed; where an
annotation's names are imported from), ``_edits`` (the LibCST edits of one
file), this module (which findings become which edits, the run).
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from spec_protocols.gate._fix._edits import Applied, Edit, EditKind, apply_edits
from spec_protocols.gate._fix._wanted import Wanted, wanted_of
from spec_protocols.gate._model import GateError, GateReport, Problem, ProtocolName, Verdict
from spec_protocols.gate._paths import shown

#: A checker's words for a call passing a keyword the callee does not take (pyright's, mypy's).
_REFUSED_KEYWORD = re.compile(r'(?:No parameter named|Unexpected keyword argument) "(\w+)"')

__all__ = ["Editable", "FilePlan", "FixPlan", "class_defined", "counts", "describe", "editable", "left_lines", "plan_fixes", "write_plan"]


@dataclass
class FilePlan:
    """The edits of one file, and what applying them gives."""

    path: Path
    edits: list[Edit] = field(default_factory=list[Edit])
    applied: Applied | None = None
    #: The file's text the edits were made on (read once).
    before: str = ""

    def diff(self, name: str | None = None) -> str:
        """The edits as a unified diff, the file called ``name`` (default: its path)."""
        if self.applied is None:
            return ""
        before = self.before
        shown = name or str(self.path)
        return "".join(
            difflib.unified_diff(before.splitlines(keepends=True), self.applied.text.splitlines(keepends=True), f"a/{shown}", f"b/{shown}")
        )


@dataclass
class FixPlan:
    """Every file's edits, and the findings no edit answers."""

    files: dict[Path, FilePlan] = field(default_factory=dict[Path, FilePlan])
    #: "target: members: why no edit" for the findings left to the author (each once, whichever checkers found it).
    left: list[str] = field(default_factory=list[str])

    @property
    def changed(self) -> list[FilePlan]:
        return [f for f in self.files.values() if f.applied is not None and f.applied.text != f.before]


def plan_fixes(report: GateReport, editable: Callable[[Path], bool]) -> FixPlan:
    """The edits ``report``'s failing findings call for, in the files ``editable`` allows."""
    plan = FixPlan()
    seen: set[tuple[Path, str, str, EditKind, str | None]] = set()
    unanswered: dict[tuple[str, str], list[str]] = {}
    for result in report.results:
        if result.verdict is not Verdict.FAIL:
            continue
        for problem in result.problems:
            if problem.unverified:
                continue
            edit, why = _edit_for(result.check.target, problem, editable)
            at: Path | None = Path(problem.file).resolve() if problem.file is not None else None
            if edit is None and problem.member is not None and _inherited(problem.message):
                # A default the class keeps (in sglang's file, or a base's) that this release's
                # draft cannot serve: the class overrides it, in its own file.
                edit, at, why = _override(result.check.target, result.check.protocol, problem.member, editable) or (None, None, why)
            if edit is None or at is None:
                members = unanswered.setdefault((result.check.target, why), [])
                if (problem.member or "(class)") not in members:
                    members.append(problem.member or "(class)")
                continue
            path = at
            key = (path, edit.cls, edit.member, edit.kind, edit.keyword)
            if key not in seen:
                seen.add(key)
                plan.files.setdefault(path, FilePlan(path)).edits.append(edit)
    for file_plan in plan.files.values():
        file_plan.applied = _apply(file_plan)
    registered = _unregistered_algorithms(report, editable)
    if registered and isinstance(editable, Editable) and _give_spec_class(plan, editable.files()):
        # The registration edit answers the default algorithm object's findings (made in sglang's file).
        unanswered = {key: members for key, members in unanswered.items() if key[0] not in registered}
    plan.left = [f"{target}: {', '.join(members)}: {why}" for (target, why), members in unanswered.items()]
    return plan


def _unregistered_algorithms(report: GateReport, editable: Callable[[Path], bool]) -> set[str]:
    """The failing algorithm objects defined outside the targets: sglang's default
    ``CustomSpecAlgo``, which a registration without ``spec_class=`` gets."""
    return {
        result.check.target
        for result in report.results
        if result.verdict is Verdict.FAIL
        and result.check.protocol == ProtocolName.SPEC_ALGORITHM
        and not any(p.file is not None and editable(Path(p.file).resolve()) for p in result.problems)
    }


def _give_spec_class(plan: FixPlan, files: Sequence[Path]) -> bool:
    """Give each registration without ``spec_class=`` in ``files`` a conforming one (:mod:`._registration`); whether any was."""
    from spec_protocols.gate._fix._registration import with_spec_class

    made = False
    for path in files:
        if not path.is_file():
            continue
        file_plan = plan.files.get(path)
        text = file_plan.applied.text if file_plan is not None and file_plan.applied is not None else path.read_text(encoding="utf-8")
        if "SpeculativeAlgorithm" not in text:
            continue
        try:
            registered = with_spec_class(text)
        except Exception:  # noqa: BLE001 - LibCST's parser: the file is the author's; no edit, not the run
            continue
        if not registered.done:
            continue
        _parses(path, registered.text)
        if file_plan is None or file_plan.applied is None:
            plan.files[path] = FilePlan(path, before=text, applied=registered)
        else:
            file_plan.applied = Applied(registered.text, [*file_plan.applied.done, *registered.done], file_plan.applied.refused)
        made = True
    return made


def _edit_for(target: str, problem: Problem, editable: Callable[[Path], bool]) -> tuple[Edit | None, str]:
    """The edit ``problem`` calls for, or why there is none."""
    if problem.member is None or problem.file is None:
        return None, "no member to edit"
    path = Path(problem.file)
    if not editable(path.resolve()):
        return None, f"{path} is not among the targets: not edited"
    cls = _class_in(path, target)
    if cls is None:
        return None, f"the class is not defined in {path}"
    message = problem.message
    wanted = wanted_of(problem.member, message)
    if message.startswith("missing:") and wanted is not None:
        return Edit(cls, problem.member, "add", wanted), ""
    if "; got async " in message:
        return Edit(cls, problem.member, "sync"), ""
    if wanted is not None and "; got " in message and wanted.is_property != message.rpartition("; got ")[2].startswith("@property "):
        # A method where sglang reads a value, or a property where it calls: the decorator, not the signature.
        return Edit(cls, problem.member, "kind", wanted), ""
    if wanted is not None and message.startswith(("signature does not match", "the constructor cannot take")):
        return Edit(cls, problem.member, "signature", wanted), ""
    refused = _REFUSED_KEYWORD.search(message)
    if refused is not None and problem.line is not None:
        # A call in the class's own code passes a keyword its callee (sglang's, on this release) does not take.
        return Edit(cls, problem.member, "call", keyword=refused.group(1), line=problem.line), ""
    return None, "no mechanical edit (read the finding)"


def _inherited(message: str) -> bool:
    """The finding of a kept default: ``inherits BaseSpecWorker.X, which uses draft_worker.Y; override X, or ...``."""
    return message.startswith("inherits ") and "; override " in message


def _override(target: str, protocol: str, member: str, editable: Callable[[Path], bool]) -> tuple[Edit, Path, str] | None:
    """An edit adding ``member`` (as ``protocol`` writes it) to the class ``target``, in the file among the targets that defines it."""
    from spec_protocols._members import protocol_definitions

    definition = next((m for m in protocol_definitions(protocol) if m.name == member), None)
    if definition is None or not isinstance(editable, Editable):
        return None
    parts = target.split(".")
    for file in editable.files():
        cls = _class_in(file, target)
        # The file's module is the part of the dotted name before the class's qualified name.
        if cls is not None and parts[: len(parts) - len(cls.split("."))][-1:] == [file.stem if file.stem != "__init__" else file.parent.name]:
            wanted = Wanted(member, definition.node, definition.is_property)
            return Edit(cls, member, "add", wanted), file.resolve(), ""
    return None


def _class_in(path: Path, target: str) -> str | None:
    """The qualified name, in ``path``, of the class ``target`` names (see :func:`class_defined`)."""
    found = class_defined(path, target)
    return found[0] if found is not None else None


def class_defined(path: Path, target: str) -> tuple[str, int] | None:
    """Where the class ``target`` (a dotted name) is defined in ``path``: the
    longest tail of it that is a class's qualified name there, and that
    class's ``class`` line; None where ``path`` defines none of them."""
    try:
        stat = path.stat()
    except OSError:
        return None
    lines = _class_lines(path, stat.st_mtime_ns, stat.st_size)
    parts = target.split(".")
    for start in range(len(parts)):
        qualname = ".".join(parts[start:])
        if qualname in lines:
            return qualname, lines[qualname]
    return None


@lru_cache(maxsize=64)
def _class_lines(path: Path, mtime_ns: int, size: int) -> Mapping[str, int]:
    """Each class's qualified name in ``path`` and its ``class`` line, for the
    file in that state (a long-lived caller, the language server, reads a
    file again only once it changed). A class in an ``if`` or ``try`` body is
    named as at its level."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return {}
    lines: dict[str, int] = {}

    def walk(body: Sequence[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                qualname = prefix + node.name
                lines.setdefault(qualname, node.lineno)
                walk(node.body, f"{qualname}.")
            elif isinstance(node, ast.If):
                walk([*node.body, *node.orelse], prefix)
            elif isinstance(node, ast.Try):
                walk([*node.body, *(h for handler in node.handlers for h in handler.body), *node.orelse, *node.finalbody], prefix)

    walk(tree.body, "")
    return lines


def _apply(file_plan: FilePlan) -> Applied:
    text = file_plan.before = file_plan.path.read_text(encoding="utf-8")
    try:
        applied = apply_edits(text, file_plan.edits)
    except Exception as error:  # noqa: BLE001 - LibCST's parser: the file is the author's; the edit is refused, not the run
        return Applied(text, refused=[f"{file_plan.path}: LibCST could not edit it ({type(error).__name__}: {error})"])
    _parses(file_plan.path, applied.text)
    return applied


def _parses(path: Path, text: str) -> None:
    """A :class:`GateError` where ``path``'s edited ``text`` does not parse: nothing is written then."""
    try:
        ast.parse(text)
    except SyntaxError as error:
        raise GateError(f"{path}: the edited text does not parse (line {error.lineno}: {error.msg}); nothing written") from None


@dataclass(frozen=True, slots=True)
class Editable:
    """The files a fix may edit: those below the targets' paths (a path given, or the module or package a name gives)."""

    roots: tuple[Path, ...]

    def __call__(self, file: Path) -> bool:
        return any(file == root or file.is_relative_to(root) for root in self.roots)

    def files(self) -> list[Path]:
        """Every Python file among the targets."""
        found: list[Path] = []
        for root in self.roots:
            found += sorted(root.rglob("*.py")) if root.is_dir() else [root]
        return found


def editable(targets: Sequence[str]) -> Editable:
    """The files among ``targets``."""
    from spec_protocols.gate._source import find_module_file

    roots: list[Path] = []
    for target in targets:
        path = Path(target)
        if path.exists():
            roots.append(path.resolve())
            continue
        module = target.partition(":")[0]
        found = find_module_file(module, [os.getcwd(), *sys.path])
        if found is None:
            raise GateError(f"cannot find {module!r}: not a path, and no module of that name on the import path")
        roots.append((found.parent if found.name == "__init__.py" else found).resolve())
    return Editable(tuple(roots))


def describe(plan: FixPlan) -> str:
    """Each changed file and its edits, ``[safe]`` / ``[review]`` / ``[not done]``, a line each."""
    lines: list[str] = []
    for file_plan in plan.changed:
        assert file_plan.applied is not None
        lines.append(f"{shown(file_plan.path)}:")
        lines += [f"  [{safety}] {words}" for safety, words in file_plan.applied.done]
        lines += [f"  [not done] {words}" for words in file_plan.applied.refused]
    return "".join(f"{line}\n" for line in lines)


def write_plan(plan: FixPlan) -> list[Path]:
    """Write every changed file; the paths written."""
    written: list[Path] = []
    for file_plan in plan.changed:
        assert file_plan.applied is not None
        file_plan.path.write_text(file_plan.applied.text, encoding="utf-8")
        written.append(file_plan.path)
    return written


def left_lines(left: Sequence[str]) -> str:
    """The findings no edit answers, under one heading ("" for none)."""
    if not left:
        return ""
    return "left to you (no mechanical edit):\n" + "".join(f"  {line}\n" for line in left)


def counts(report: GateReport) -> str:
    """``N pass, N fail, N unverified`` of ``report``."""
    summary = report.summary()
    return f"{summary.get('pass', 0)} pass, {summary.get('fail', 0)} fail, {summary.get('unverified', 0)} unverified"
