"""``spec-protocols fix``: the gate's findings made into edits of the plugin's own files.

A run checks the targets, plans an edit for each finding that says mechanically
what to change (:mod:`._wanted` reads what it expects; :mod:`._edits` makes
the edit with LibCST), shows them as a unified diff or writes them, and then
checks again and says what is left. It never touches a file outside the
targets (sglang's ``CustomSpecAlgo`` is reported, not edited), never writes a
file whose new text does not parse, and leaves every finding it has no edit
for (a type, a property that should be a method) to the author, listed.

The rooms: ``_wanted`` (a finding's expected signature, parsed; where an
annotation's names are imported from), ``_edits`` (the LibCST edits of one
file), this module (which findings become which edits, the run).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spec_protocols.gate._fix._edits import Applied, Edit, EditKind, apply_edits
from spec_protocols.gate._fix._wanted import wanted_of
from spec_protocols.gate._model import GateError, GateReport, Problem, Verdict

__all__ = ["FilePlan", "FixPlan", "plan_fixes"]


@dataclass
class FilePlan:
    """The edits of one file, and what applying them gives."""

    path: Path
    edits: list[Edit] = field(default_factory=list[Edit])
    applied: Applied | None = None

    def diff(self, name: str | None = None) -> str:
        """The edits as a unified diff, the file called ``name`` (default: its path)."""
        if self.applied is None:
            return ""
        before = self.path.read_text(encoding="utf-8")
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
        return [f for f in self.files.values() if f.applied is not None and f.applied.text != f.path.read_text(encoding="utf-8")]


def plan_fixes(report: GateReport, editable: Callable[[Path], bool]) -> FixPlan:
    """The edits ``report``'s failing findings call for, in the files ``editable`` allows."""
    plan = FixPlan()
    seen: set[tuple[Path, str, str, EditKind]] = set()
    unanswered: dict[tuple[str, str], list[str]] = {}
    for result in report.results:
        if result.verdict is not Verdict.FAIL:
            continue
        for problem in result.problems:
            if problem.unverified:
                continue
            edit, why = _edit_for(result.check.target, problem, editable)
            if edit is None or problem.file is None:
                members = unanswered.setdefault((result.check.target, why), [])
                if (problem.member or "(class)") not in members:
                    members.append(problem.member or "(class)")
                continue
            path = Path(problem.file).resolve()
            key = (path, edit.cls, edit.member, edit.kind)
            if key not in seen:
                seen.add(key)
                plan.files.setdefault(path, FilePlan(path)).edits.append(edit)
    plan.left = [f"{target}: {', '.join(members)}: {why}" for (target, why), members in unanswered.items()]
    for file_plan in plan.files.values():
        file_plan.applied = _apply(file_plan)
    return plan


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
    if wanted is not None and message.startswith(("signature does not match", "the constructor cannot take")):
        return Edit(cls, problem.member, "signature", wanted), ""
    return None, "no mechanical edit (read the finding)"


def _class_in(path: Path, target: str) -> str | None:
    """The qualified name, in ``path``, of the class ``target`` (a dotted name) names: its longest tail defined there."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    defined: set[str] = set()

    def walk(body: Sequence[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                defined.add(prefix + node.name)
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    parts = target.split(".")
    for start in range(len(parts)):
        qualname = ".".join(parts[start:])
        if qualname in defined:
            return qualname
    return None


def _apply(file_plan: FilePlan) -> Applied:
    text = file_plan.path.read_text(encoding="utf-8")
    try:
        applied = apply_edits(text, file_plan.edits)
    except Exception as error:  # noqa: BLE001 - LibCST's parser: the file is the author's; the edit is refused, not the run
        return Applied(text, refused=[f"{file_plan.path}: LibCST could not edit it ({type(error).__name__}: {error})"])
    try:
        ast.parse(applied.text)
    except SyntaxError as error:
        raise GateError(f"{file_plan.path}: the edited text does not parse (line {error.lineno}: {error.msg}); nothing written") from None
    return applied
