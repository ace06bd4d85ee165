"""The upgrade plan, as data: what a plugin must change to pass on release B.

Built by :func:`~spec_protocols.gate._upgrade._build.build_plan` from the
two releases' contracts and terms and the gate's reports on each, rendered by
:mod:`~spec_protocols.gate._upgrade._plan_formats`. Every value is frozen and
plain, so that the JSON format is the codec's encoding of it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from spec_protocols.gate._contract import Contract, ReleaseTerms
from spec_protocols.gate._model import GateReport

__all__ = ["ClassStep", "FailingCheck", "PlanProblem", "ReleaseSide", "Step", "StepKind", "UpgradePlan"]


class StepKind(enum.Enum):
    """What changed between the releases, in the order an author works through it."""

    #: The keywords sglang's scheduler constructs the spec worker with
    #: (``Scheduler.maybe_init_draft_worker``).
    CONSTRUCTOR = "constructor"
    #: A member B calls (or, on the draft worker, B's ``BaseSpecWorker``
    #: defaults use) that A did not.
    NEW_MEMBER = "new member"
    #: A ``BaseSpecWorker`` default that the class keeps uses more of the draft worker on B.
    INHERITED_NEED = "inherited need"
    #: A member both call, called otherwise on B.
    SIGNATURE = "signature"
    #: A member A calls and B does not: a class may drop it.
    DROPPED_MEMBER = "no longer called"
    #: The keywords ``build_draft_tp_worker`` passes ``draft_worker_cls``, and what it sets on what it built.
    DRAFT_FACTORY = "draft factory"
    #: Members sglang finds by name (``getattr``/``hasattr``), capabilities
    #: behind ``isinstance``, the registration flag that picks a scheduler branch.
    HOOK = "hook or capability"


#: The kinds in the order a plan lists them.
STEP_ORDER: tuple[StepKind, ...] = tuple(StepKind)


@dataclass(frozen=True, slots=True)
class PlanProblem:
    """One of the gate's problems (a :class:`~spec_protocols.gate._model.Problem`),
    as a plan quotes it: who said it, of which member, in what words, at which line."""

    checker: str
    #: The member it is about (``__init__`` for the constructor); ``""``: the whole class.
    member: str
    message: str
    #: Its line in the plugin's file, where the gate located it (a checker's
    #: own error there says only its words: the line says where).
    line: int | None = None


@dataclass(frozen=True, slots=True)
class ClassStep:
    """What one class of TARGET has to do with one step."""

    #: The class's dotted name, as the gate reports it.
    target: str
    #: The protocol it is checked against for this step.
    protocol: str
    #: Whether the gate's report on B has a problem this step accounts for.
    must_change: bool
    #: Those problems, as the gate words them on B.
    problems: tuple[PlanProblem, ...] = ()
    #: What the plan knows of the class for this step (``keeps BaseSpecWorker's``, ``defines it``).
    note: str = ""


@dataclass(frozen=True, slots=True)
class Step:
    """One change between the releases, with the classes it concerns."""

    kind: StepKind
    #: The member, keyword or call it is about.
    subject: str
    #: What changed, in words, naming both releases.
    change: str
    #: What an author does about it.
    action: str
    #: Where B makes the call (``file:line (function)``); ``""``: nowhere to name.
    site: str = ""
    #: What B expects (a signature, a call); ``""``: nothing to show.
    expected: str = ""
    #: The classes of TARGET it concerns, in report order.
    classes: tuple[ClassStep, ...] = ()

    @property
    def must_change(self) -> bool:
        return any(c.must_change for c in self.classes)


@dataclass(frozen=True, slots=True)
class FailingCheck:
    """A check (class, protocol) that does not pass on one release, with its
    problems: what already failed on A, or what no step accounts for on B."""

    target: str
    protocol: str
    verdict: str
    problems: tuple[PlanProblem, ...] = ()


@dataclass(frozen=True, slots=True)
class UpgradePlan:
    """What a plugin checked on release A must change to pass on release B."""

    #: The releases, as the gate read them (``0.5.20``).
    source: str
    destination: str
    #: The targets as given.
    targets: tuple[str, ...]
    #: The checkers that ran, on both.
    checkers: tuple[str, ...]
    #: The checks that already fail on A, said first: the upgrade did not cause them.
    failing_on_source: tuple[FailingCheck, ...]
    #: The changes that concern TARGET's classes, in :data:`STEP_ORDER`.
    steps: tuple[Step, ...]
    #: What fails on B that no step accounts for: it would still fail after them.
    remaining: tuple[FailingCheck, ...]
    #: Whether TARGET passes on B as it is.
    passes_on_destination: bool
    #: Changes between the releases that concern no class of TARGET, one line each.
    unconcerned: tuple[str, ...] = ()

    @property
    def exit_status(self) -> int:
        """0: TARGET passes on B as it is; 1: something must change."""
        return 0 if self.passes_on_destination else 1


@dataclass(frozen=True, slots=True)
class ReleaseSide:
    """One release of an upgrade: what its source asks, and what the gate said of TARGET on it."""

    contract: Contract
    terms: ReleaseTerms
    report: GateReport

    @property
    def release(self) -> str:
        return self.contract.release
