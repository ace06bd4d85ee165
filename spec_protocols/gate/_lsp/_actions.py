"""The edits ``spec-protocols fix`` would make in one file, as an editor's code actions.

Each edit the fix plan makes in the file is one action (its title is fix's
own line: ``[safe]`` keeps what the code does, ``[review]`` changes it), and,
where there are several, one more applies them all. An action carries the
file's whole new text: the edits are LibCST's, made on the file as saved, so
the server offers them only while the editor's text is the saved text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._fix import Editable, plan_fixes
from spec_protocols.gate._fix._edits import apply_edits
from spec_protocols.gate._model import GateError, GateReport

__all__ = ["Mend", "mends_for"]


@dataclass(frozen=True, slots=True)
class Mend:
    """One code action: its title, the file's text after it, the members it answers."""

    title: str
    text: str
    members: tuple[str, ...]
    #: The one to apply by default (the action that makes them all).
    preferred: bool = False


def mends_for(report: GateReport, path: Path) -> list[Mend]:
    """The actions that mend ``report``'s findings in ``path`` (none where fix has no edit there)."""
    try:
        plan = plan_fixes(report, Editable((path,)))
    except GateError:
        return []  # an edit whose text would not parse: fix refuses it, and so does the editor
    file_plan = plan.files.get(path)
    if file_plan is None or file_plan.applied is None or file_plan.applied.text == file_plan.before:
        return []
    mends: list[Mend] = []
    for edit in file_plan.edits:
        try:
            one = apply_edits(file_plan.before, [edit])
        except Exception:  # noqa: BLE001 - LibCST on the author's file: that action is not offered
            continue
        if one.text == file_plan.before or not one.done:
            continue
        words = "; ".join(f"[{safety}] {what}" for safety, what in one.done)
        mends.append(Mend(f"spec-protocols: {words}", one.text, (edit.member,)))
    if len(mends) != 1 or mends[0].text != file_plan.applied.text:
        # Several edits, or one no single action makes (a registration given its spec_class=).
        members = tuple(dict.fromkeys(edit.member for edit in file_plan.edits))
        count = len(file_plan.applied.done)
        mends.append(Mend(f"spec-protocols: make all {count} edits (spec-protocols fix --write)", file_plan.applied.text, members, True))
    return mends
