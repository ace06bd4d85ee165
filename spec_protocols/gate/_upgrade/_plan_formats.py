"""The upgrade plan for people (text, markdown) and for tools (json).

All three say the same, in the same order: the verdict first (whether
TARGET passes on B as it is; else how many steps must change it, and what
would still fail on B after them), what already failed on A, the steps that
must change a class (each with the classes it concerns, and the gate's words
on B for those that must change), the steps that change nothing for any
class folded into one line, the release's changes that concern no class of
TARGET, and what no step accounts for. Text wraps at 80 columns at spaces,
never cutting a message; markdown keeps each message on one line, for a page
of docs; json holds every step in full, each with its ``must_change``.
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

__all__ = ["FORMATS", "render_plan", "upgrade_json", "upgrade_markdown", "upgrade_text", "verdict_line"]

_WIDTH = 80
#: The JSON document's format version (2: ``verdict`` in place of ``final``,
#: and each step's ``must_change``).
_VERSION = 2


def _targets(plan: UpgradePlan) -> str:
    return " ".join(plan.targets) or "the default targets"


def _at(problem: PlanProblem) -> str:
    return f" (line {problem.line})" if problem.line is not None else ""


def _problem(problem: PlanProblem) -> str:
    member = f" {problem.member}" if problem.member else ""
    return f"{problem.checker}{member}{_at(problem)}: {problem.message}"


def verdict_line(plan: UpgradePlan) -> str:
    """The plan's verdict, said first: TARGET passes on B as it is, or how
    many steps must change it and what would still fail on B after them."""
    targets, destination = _targets(plan), plan.destination
    if plan.passes_on_destination:
        return f"{targets} passes on sglang {destination} as it is: nothing must change."
    count = sum(1 for step in plan.steps if step.must_change)
    left = ", ".join(f"{f.target} ({f.protocol})" for f in plan.remaining)
    if not count:
        still = f": {left}" if left else ""
        return f"{targets} does not pass on sglang {destination}, and no change between the releases accounts for it{still}."
    change = f"{targets} must change for sglang {destination}: {count} step{'' if count == 1 else 's'}"
    if not left:
        return f"{change}; after {'it' if count == 1 else 'them'} nothing the gate reports on sglang {destination} is left."
    return f"{change}; after {'it' if count == 1 else 'them'}, still failing on sglang {destination}: {left}."


def _must(plan: UpgradePlan) -> list[Step]:
    return [step for step in plan.steps if step.must_change]


def _folded(plan: UpgradePlan) -> str | None:
    """The steps that change nothing for any class, in one line (``None``: there are none)."""
    quiet = [f"[{step.kind.value}] {step.subject}" for step in plan.steps if not step.must_change]
    if not quiet:
        return None
    changes = "change" if len(quiet) == 1 else f"{len(quiet)} changes"
    other = " other" if len(quiet) < len(plan.steps) else ""
    return f"Nothing to change for the{other} {changes} between sglang {plan.source} and {plan.destination} that concern TARGET's classes (--format json lists each in full): {'; '.join(quiet)}."


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
    lines = [*_wrap(_heading(plan), ""), *_wrap(verdict_line(plan), ""), ""]
    if plan.failing_on_source:
        lines += [f"Already failing on sglang {plan.source} (the upgrade did not cause these):"]
        lines += [*_text_failing(plan.failing_on_source), ""]
    if _must(plan):
        lines += [f"What to change for sglang {plan.destination}, in order:"]
        for number, step in enumerate(_must(plan), 1):
            lines += _text_step(number, step)
        lines.append("")
    if (folded := _folded(plan)) is not None:
        lines += [*_wrap(folded, ""), ""]
    if not plan.steps:
        lines += [f"No change between sglang {plan.source} and {plan.destination} concerns a class of TARGET.", ""]
    if plan.unconcerned:
        lines += [f"Changed between sglang {plan.source} and {plan.destination}, concerning no class of TARGET:"]
        for item in plan.unconcerned:
            lines += _wrap(f"- {item}", "  ")
        lines.append("")
    if plan.remaining:
        lines += [f"Still failing on sglang {plan.destination} after these steps (no step accounts for it):"]
        lines += [*_text_failing(plan.remaining), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


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
    return f"{problem.checker}{member}{_at(problem)}: {_md_escape(problem.message)}"


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
        f"**{_md_escape(verdict_line(plan))}**",
        "",
    ]
    if plan.failing_on_source:
        lines += [f"Already failing on sglang {plan.source} (the upgrade did not cause these):", ""]
        lines += [*_md_failing(plan.failing_on_source), ""]
    if _must(plan):
        lines += [f"What to change for sglang {plan.destination}, in order:", ""]
        for number, step in enumerate(_must(plan), 1):
            lines += _md_step(number, step)
        lines.append("")
    if (folded := _folded(plan)) is not None:
        lines += [_md_escape(folded), ""]
    if not plan.steps:
        lines += [f"No change between sglang {plan.source} and {plan.destination} concerns a class of TARGET.", ""]
    if plan.unconcerned:
        lines += [f"Changed between sglang {plan.source} and {plan.destination}, concerning no class of TARGET:", ""]
        lines += [f"- {_md_escape(item)}" for item in plan.unconcerned]
        lines.append("")
    if plan.remaining:
        lines += [f"Still failing on sglang {plan.destination} after these steps (no step accounts for it):", ""]
        lines += [*_md_failing(plan.remaining), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


# -- json ----------------------------------------------------------------------------


def upgrade_json(plan: UpgradePlan) -> str:
    """The plan as the codec writes it, after its version, verdict and exit
    status; each step with its ``must_change`` (the steps the other formats
    fold into one line are those without)."""
    data = cast("dict[str, object]", encode(plan))
    steps = cast("list[dict[str, object]]", data["steps"])
    for step, encoded in zip(plan.steps, steps, strict=True):
        encoded["must_change"] = step.must_change
    document: dict[str, object] = {"version": _VERSION, "verdict": verdict_line(plan), "exit_status": plan.exit_status}
    document.update(data)
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
