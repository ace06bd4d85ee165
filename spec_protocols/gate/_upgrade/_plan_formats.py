"""The upgrade plan for people (text, markdown) and for tools (json).

All three say the same, in the plan's order: what already failed on A, the
steps (each with the classes it concerns, and the gate's words on B for those
that must change), the release's changes that concern no class of TARGET,
and a last line saying what would still fail on B after the steps. Text
wraps at 80 columns at spaces, never cutting a message; markdown keeps each
message on one line, for a page of docs.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import cast

from spec_protocols.gate._codec import encode
from spec_protocols.gate._model import GateError
from spec_protocols.gate._upgrade._plan import ClassStep, FailingCheck, PlanProblem, Step, UpgradePlan

__all__ = ["FORMATS", "final_line", "render_plan", "upgrade_json", "upgrade_markdown", "upgrade_text"]

_WIDTH = 80
#: The JSON document's format version.
_VERSION = 1


def _targets(plan: UpgradePlan) -> str:
    return " ".join(plan.targets) or "the default targets"


def _problem(problem: PlanProblem) -> str:
    member = f" {problem.member}" if problem.member else ""
    return f"{problem.checker}{member}: {problem.message}"


def final_line(plan: UpgradePlan) -> str:
    """The plan's last line: what would still fail on B after its steps."""
    if plan.passes_on_destination:
        return f"{_targets(plan)} passes on sglang {plan.destination} as it is: nothing must change."
    if not plan.remaining:
        return f"After these steps nothing the gate reports on sglang {plan.destination} is left."
    left = ", ".join(f"{f.target} ({f.protocol})" for f in plan.remaining)
    return f"After these steps, still failing on sglang {plan.destination}: {left}."


def _class_state(step: ClassStep) -> str:
    state = "must change" if step.must_change else "nothing to change"
    return f"{step.target} ({step.protocol}): {state}" + (f"; {step.note}" if step.note else "")


def _heading(plan: UpgradePlan) -> str:
    return f"Upgrading {_targets(plan)} from sglang {plan.source} to {plan.destination} (checked with {', '.join(plan.checkers)})"


# -- text ----------------------------------------------------------------------------


def _wrap(text: str, indent: str, more: str = "  ") -> list[str]:
    return textwrap.wrap(
        " ".join(text.split()),
        _WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + more,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _text_failing(checks: tuple[FailingCheck, ...]) -> list[str]:
    lines: list[str] = []
    for check in checks:
        lines += _wrap(f"{check.target} ({check.protocol}): {check.verdict}", "  ")
        for problem in check.problems:
            lines += _wrap(_problem(problem), "    ")
    return lines


def _text_step(number: int, step: Step) -> list[str]:
    lines = _wrap(f"{number}. [{step.kind.value}] {step.subject}", "", "   ")
    lines += _wrap(step.change, "   ")
    if step.expected:
        lines += _wrap(f"expected: {step.expected}", "   ")
    if step.site:
        lines += _wrap(f"where: {step.site}", "   ")
    lines += _wrap(f"to do: {step.action}", "   ")
    for cls in step.classes:
        lines += _wrap(f"- {_class_state(cls)}", "   ")
        for problem in cls.problems:
            lines += _wrap(_problem(problem), "       ")
    return lines


def upgrade_text(plan: UpgradePlan) -> str:
    """The plan for a terminal."""
    lines = [*_wrap(_heading(plan), ""), ""]
    if plan.failing_on_source:
        lines += [f"Already failing on sglang {plan.source} (the upgrade did not cause these):"]
        lines += [*_text_failing(plan.failing_on_source), ""]
    if plan.steps:
        lines += [f"What to change for sglang {plan.destination}, in order:"]
        for number, step in enumerate(plan.steps, 1):
            lines += _text_step(number, step)
        lines.append("")
    else:
        lines += [f"No change between sglang {plan.source} and {plan.destination} concerns a class of TARGET.", ""]
    if plan.unconcerned:
        lines += [f"Changed between sglang {plan.source} and {plan.destination}, concerning no class of TARGET:"]
        for item in plan.unconcerned:
            lines += _wrap(f"- {item}", "  ")
        lines.append("")
    if plan.remaining:
        lines += [f"Still failing on sglang {plan.destination} after these steps (no step accounts for it):"]
        lines += [*_text_failing(plan.remaining), ""]
    lines += _wrap(final_line(plan), "")
    return "\n".join(lines) + "\n"


# -- markdown ------------------------------------------------------------------------


def _md_failing(checks: tuple[FailingCheck, ...]) -> list[str]:
    lines: list[str] = []
    for check in checks:
        lines.append(f"- `{check.target}` ({check.protocol}): {check.verdict}")
        lines += [f"  - {_md_problem(p)}" for p in check.problems]
    return lines


def _md_escape(text: str) -> str:
    """``text`` for a markdown line: what would read as markup is escaped
    (an underscore inside a word, ``load_group``, is not emphasis and stays)."""
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("`", "\\`").replace("<", "&lt;")
    return re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)


def _md_problem(problem: PlanProblem) -> str:
    member = f" `{problem.member}`" if problem.member else ""
    return f"{problem.checker}{member}: {_md_escape(problem.message)}"


def _md_step(number: int, step: Step) -> list[str]:
    lines = [f"{number}. **{step.kind.value}: `{step.subject}`**. {_md_escape(step.change)}."]
    if step.expected:
        lines.append(f"   - expected: `{step.expected}`")
    if step.site:
        lines.append(f"   - where: `{step.site}`")
    lines.append(f"   - to do: {_md_escape(step.action)}")
    for cls in step.classes:
        state = "**must change**" if cls.must_change else "nothing to change"
        note = f"; {_md_escape(cls.note)}" if cls.note else ""
        lines.append(f"   - `{cls.target}` ({cls.protocol}): {state}{note}")
        lines += [f"     - {_md_problem(p)}" for p in cls.problems]
    return lines


def upgrade_markdown(plan: UpgradePlan) -> str:
    """The plan for a page of docs (or a pull request)."""
    targets = " ".join(f"`{t}`" for t in plan.targets) or "the default targets"
    lines = [
        f"**Upgrading {targets} from sglang {plan.source} to {plan.destination}** (checked with {', '.join(plan.checkers)})",
        "",
    ]
    if plan.failing_on_source:
        lines += [f"Already failing on sglang {plan.source} (the upgrade did not cause these):", ""]
        lines += [*_md_failing(plan.failing_on_source), ""]
    if plan.steps:
        lines += [f"What to change for sglang {plan.destination}, in order:", ""]
        for number, step in enumerate(plan.steps, 1):
            lines += _md_step(number, step)
        lines.append("")
    else:
        lines += [f"No change between sglang {plan.source} and {plan.destination} concerns a class of TARGET.", ""]
    if plan.unconcerned:
        lines += [f"Changed between sglang {plan.source} and {plan.destination}, concerning no class of TARGET:", ""]
        lines += [f"- {_md_escape(item)}" for item in plan.unconcerned]
        lines.append("")
    if plan.remaining:
        lines += [f"Still failing on sglang {plan.destination} after these steps (no step accounts for it):", ""]
        lines += [*_md_failing(plan.remaining), ""]
    lines.append(_md_escape(final_line(plan)))
    return "\n".join(lines) + "\n"


# -- json ----------------------------------------------------------------------------


def upgrade_json(plan: UpgradePlan) -> str:
    """The plan as the codec writes it, with its version, exit status and final line."""
    data = encode(plan)
    assert isinstance(data, dict)
    document: dict[str, object] = {"version": _VERSION}
    document.update(cast("dict[str, object]", data))
    document.update(exit_status=plan.exit_status, final=final_line(plan))
    return json.dumps(document, indent=2) + "\n"


#: ``--format`` name -> renderer, the default (text) first.
FORMATS: Mapping[str, Callable[[UpgradePlan], str]] = {
    "text": upgrade_text,
    "markdown": upgrade_markdown,
    "json": upgrade_json,
}


def render_plan(plan: UpgradePlan, fmt: str) -> str:
    """``plan`` in format ``fmt`` (a key of :data:`FORMATS`)."""
    renderer = FORMATS.get(fmt)
    if renderer is None:
        raise GateError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    return renderer(plan)
