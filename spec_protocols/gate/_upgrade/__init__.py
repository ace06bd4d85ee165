"""``spec-protocols upgrade``: what a plugin that passes on one sglang release must change to pass on another.

``_plan``          the plan as data (:class:`UpgradePlan`: steps by :class:`StepKind`,
                   each with the classes of TARGET it concerns)
``_build``         :func:`build_plan`: from two :class:`ReleaseSide` s (a release's
                   contract, its terms and the gate's report on TARGET there)
``_steps``         the readers, one per kind of change, from the two releases' terms
``_classes``       what a class's methods store on ``self`` (a hook an instance attribute answers)
``_plan_formats``  text, markdown and json (:data:`FORMATS`, :func:`render_plan`), the
                   verdict first (:func:`verdict_line`)

It sits beside the reports: it reads the contract stage's terms and the
model's reports, and the CLI runs the gate for it; nothing here runs a checker.
"""

from __future__ import annotations

from spec_protocols.gate._upgrade._build import build_plan
from spec_protocols.gate._upgrade._plan import ClassStep, FailingCheck, PlanProblem, ReleaseSide, Step, StepKind, UpgradePlan
from spec_protocols.gate._upgrade._plan_formats import FORMATS, render_plan, verdict_line

__all__ = [
    "FORMATS",
    "ClassStep",
    "FailingCheck",
    "PlanProblem",
    "ReleaseSide",
    "Step",
    "StepKind",
    "UpgradePlan",
    "build_plan",
    "render_plan",
    "verdict_line",
]
