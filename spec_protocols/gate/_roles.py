"""What each role asks of a class: the one policy that the harness, the verdict core and the runtime probe read.

Discovery gives every class it picks one or more roles
(:class:`~spec_protocols.gate._model.ClassRole`). A role decides

* the protocol the class is checked against (``ClassRole.protocol``, in the model);
* whose members it is held to, member by member (``members``; ``None`` for a
  class held to its construction alone: what the call builds must satisfy
  ``Construction.builds``);
* the call sglang builds it with (:class:`Construction`): the scheduler's
  constructor call, ``build_draft_tp_worker``'s call of ``draft_worker_cls``,
  or none that the gate knows (a draft worker its own spec worker builds,
  with arguments of its own: only being abstract counts then);
* whether it must be concrete: a class sglang instantiates must be, except an
  intentional base (``DiscoveredClass.may_be_abstract``) in a role whose
  classes sglang reaches only through their subclasses. An injected class is
  instantiated by ``build_draft_tp_worker`` whatever else it is, so it is
  never excused;
* whether it inherits ``BaseSpecWorker``'s defaults, whose needs of the draft
  worker, presence-only members and nominal hooks are checked with it.

What a class's registrations (``DiscoveredClass.registrations``) add to its
role: :func:`registered_terms` (the scheduler branch the registered algorithm
takes and how that branch calls the worker, the capability protocols its
``spec_class`` turns on, the keywords a ``functools.partial`` supplies to its
constructor). A registered class is always built by the scheduler, so it is
never excused for being abstract (discovery does not mark it
``may_be_abstract``).

The keywords of a construction call are the release's
(:attr:`ReleaseTerms.constructor_keywords`, ``.draft_factory_keywords``), or,
where the release has no such call, the factory protocol's own
(:func:`spec_protocols._members.call_keywords`): never a copy.

This module imports no checker and no stage: the runtime probe reads it in
its subprocess, before any target code runs.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from typing_extensions import Protocol

from spec_protocols._members import call_keywords
from spec_protocols._protocols import PROTOCOL_NAMES
from spec_protocols.gate._model import ClassRole, ProtocolName, Registration

__all__ = [
    "CAPABILITIES",
    "Construction",
    "RegisteredTerms",
    "ReleaseBranches",
    "ReleaseKeywords",
    "RolePolicy",
    "class_terms",
    "policy",
    "policy_for",
    "registered_terms",
    "role_policies",
]

#: The capability protocols (``SupportsGrammarOverlap``, ...), in PROTOCOL_NAMES' order.
CAPABILITIES: tuple[str, ...] = tuple(name for name in PROTOCOL_NAMES if name.startswith("Supports"))


class ReleaseKeywords(Protocol):
    """The keywords a release builds workers with: what a
    :class:`~spec_protocols.gate._contract._terms.ReleaseTerms` (or the
    contract it is read from) says of its two construction calls."""

    @property
    def constructor_keywords(self) -> tuple[str, ...]: ...
    @property
    def draft_factory_keywords(self) -> tuple[str, ...] | None: ...


class Construction(enum.Enum):
    """A call with which sglang builds a class."""

    #: ``Scheduler.maybe_init_draft_worker``'s call of the spec worker class.
    SCHEDULER = "scheduler"
    #: ``build_draft_tp_worker``'s call of ``draft_worker_cls``.
    DRAFT_FACTORY = "draft_factory"

    @property
    def factory(self) -> ProtocolName:
        """The protocol that writes the call."""
        if self is Construction.SCHEDULER:
            return ProtocolName.SPEC_WORKER_FACTORY
        return ProtocolName.DRAFT_WORKER_FACTORY

    @property
    def builds(self) -> ProtocolName | None:
        """What the call must build, for a factory protocol generic in it (its
        type variable is a private name no reader knows); ``None``: what the
        protocol's own return type says."""
        return ProtocolName.INJECTABLE_DRAFT_WORKER if self is Construction.DRAFT_FACTORY else None

    def keywords(self, terms: ReleaseKeywords) -> tuple[str, ...]:
        """The keywords the release checked passes; the factory protocol's own
        where it passes none of its own (no ``draft_worker_cls`` before 0.5.19)."""
        if self is Construction.SCHEDULER:
            return terms.constructor_keywords
        given = terms.draft_factory_keywords
        return given if given is not None else self.protocol_keywords()

    def protocol_keywords(self) -> tuple[str, ...]:
        """The keywords of the call as its factory protocol writes it."""
        return call_keywords(self.factory)

    def as_protocol_writes(self, terms: ReleaseKeywords) -> bool:
        """Whether the release passes exactly the protocol's keywords (in any
        order), or none of its own: the class object can then be checked as
        the factory protocol, whole (the harness's factory line)."""
        given = terms.constructor_keywords if self is Construction.SCHEDULER else terms.draft_factory_keywords
        return given is None or set(given) == set(self.protocol_keywords())


@dataclass(frozen=True, slots=True)
class RolePolicy:
    """What a class in ``role`` must be."""

    role: ClassRole
    #: The protocol whose members it is held to, one by one; ``None``: it is
    #: held to its construction, whose result must be ``construction.builds``.
    members: ProtocolName | None
    #: The call sglang builds it with; ``None``: none the gate knows (its own
    #: spec worker builds it), so only a bare call, to see it is concrete.
    construction: Construction | None = None
    #: Whether an intentional base (``DiscoveredClass.may_be_abstract``) may be
    #: abstract, with a note; ``False``: sglang instantiates the class itself.
    excuses_abstract_base: bool = False
    #: A role whose construction is the one sglang makes when the class plays it too.
    built_as: ClassRole | None = None
    #: Whether what it inherits from ``BaseSpecWorker`` is checked with it.
    inherits_defaults: bool = False
    #: Who builds it, in words, where :attr:`construction` is not the
    #: scheduler's call (what a problem found once it is built names).
    built_where: str = "its spec worker"
    #: What to do about a member it lacks, in words, where the fix is the
    #: same for every class of the role (the report's note ends with it).
    remedy: str | None = None
    #: Whether its registrations' factories (``Registration.factory``) are
    #: checked with it, against ``WorkerClassFactory``: what its
    #: ``create_worker`` calls (``self.factory(server_args)``, spec_registry.py).
    holds_factories: bool = False

    @property
    def protocol(self) -> ProtocolName:
        return self.role.protocol

    def may_be_abstract(self, intentional_base: bool) -> bool:
        """Whether a class of this role that is abstract gets a note, not a failure."""
        return intentional_base and self.excuses_abstract_base

    def bare_construction(self, roles: Collection[ClassRole]) -> bool:
        """Whether a class with ``roles`` is built, in this role, by a call the
        gate does not know: then only a bare call checks that it is concrete."""
        return self.construction is None and (self.built_as is None or self.built_as not in roles)


#: Every role's policy, keyed by its role.
_POLICIES: Mapping[ClassRole, RolePolicy] = {
    policy.role: policy
    for policy in (
        RolePolicy(
            ClassRole.SPEC_WORKER, ProtocolName.SPEC_WORKER, Construction.SCHEDULER, excuses_abstract_base=True, inherits_defaults=True
        ),
        RolePolicy(ClassRole.DRAFT_WORKER, ProtocolName.DRAFT_WORKER, excuses_abstract_base=True, built_as=ClassRole.INJECTED),
        RolePolicy(ClassRole.INJECTED, None, Construction.DRAFT_FACTORY),
        # The algorithm object is built by register_algorithm
        # (``spec_class(name=, factory=, supports_overlap=, validate_server_args=)``,
        # spec_registry.py), a call no release changes and CustomSpecAlgo's
        # __init__ takes: only "abstract" is checked of it (a bare call). Its
        # registered factories are held to create_worker's call
        # (:data:`ProtocolName.WORKER_CLASS_FACTORY`, with the class's lines).
        RolePolicy(
            ClassRole.ALGORITHM,
            ProtocolName.SPEC_ALGORITHM,
            built_where="register_algorithm (spec_class(name=, factory=, ...), speculative/spec_registry.py)",
            remedy=(
                "register the algorithm with spec_class=, a class deriving from spec_protocols.SpecAlgorithmBase and "
                "sglang's CustomSpecAlgo (class MyAlgorithm(SpecAlgorithmBase, CustomSpecAlgo)), which defines "
                "what CustomSpecAlgo lacks as the enum SpeculativeAlgorithm does"
            ),
            holds_factories=True,
        ),
    )
}

_BY_PROTOCOL: Mapping[str, RolePolicy] = {p.protocol: p for p in _POLICIES.values()}


def policy(role: ClassRole) -> RolePolicy:
    """What ``role`` asks of a class."""
    return _POLICIES[role]


def policy_for(protocol: str) -> RolePolicy:
    """The policy of the role whose checks are against ``protocol`` (a
    ``Check.protocol``); a ``KeyError`` for a protocol no role checks."""
    return _BY_PROTOCOL[protocol]


def role_policies() -> tuple[RolePolicy, ...]:
    """Every role's policy, in the order of :class:`ClassRole`."""
    return tuple(_POLICIES[role] for role in ClassRole)


class ReleaseBranches(Protocol):
    """What a release says of the scheduler's branches (a
    :class:`~spec_protocols.gate._contract._terms.ReleaseTerms`): how each
    calls the spec worker's members whose calls differ by branch, and which
    branches a registration's keywords allow."""

    @property
    def branch_shapes(self) -> Mapping[str, Mapping[str, object]]: ...
    @property
    def overlap_flag(self) -> str | None: ...
    @property
    def branch_only(self) -> Mapping[str, str]: ...
    @property
    def built_in_unreached(self) -> Mapping[str, frozenset[str]]: ...
    def branches_for(self, registration: Mapping[str, object]) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class RegisteredTerms:
    """What a class's registrations hold it to, beyond its role's protocol."""

    #: The scheduler branches the registered algorithm runs on; ``None``: no
    #: registration was read (or the release has no branch flag), the
    #: protocol's calls apply as pinned.
    branches: frozenset[str] | None = None
    #: Spec worker member -> each call the scheduler makes of it on those
    #: branches (the release's call shapes, ``ReleaseTerms.branch_shapes``),
    #: for the members whose calls differ by branch; held in place of the
    #: protocol's signature. Empty with :attr:`branches` ``None``.
    calls: Mapping[str, tuple[object, ...]] = field(default_factory=dict[str, tuple[object, ...]])
    #: The capability protocols the registration's ``spec_class`` turns on
    #: (``supports_grammar_overlap()`` -> ``SupportsGrammarOverlap``: the
    #: scheduler's overlap call adds ``grammar_barrier=``, scheduler.py
    #: run_batch): held on the overlap branch (the branch the flag enables).
    capabilities: tuple[str, ...] = ()
    #: Keywords a ``functools.partial`` returned by ``create_worker`` binds:
    #: the scheduler's construction call supplies them too.
    bound_keywords: tuple[str, ...] = ()
    #: Spec worker members the release uses only on a branch the registered
    #: algorithm never runs (``ReleaseTerms.branch_only``:
    #: ``last_shared_read_runner``, read only by the overlap loops, for an
    #: algorithm registered with ``supports_overlap=False``): not required.
    unreached: frozenset[str] = frozenset()


def _predicate(capability: str) -> str:
    """``SupportsGrammarOverlap`` -> ``supports_grammar_overlap``: the
    algorithm predicate that turns a capability on."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", capability).lower()


def registered_terms(registrations: Sequence[Registration], terms: ReleaseBranches) -> RegisteredTerms:
    """What ``registrations`` (a class's) hold it to in the release ``terms`` describe.

    The branch: ``CustomSpecAlgo.create_worker`` (``spec_registry.py``)
    refuses overlap scheduling when the flag is false, so a registration
    that writes it false (or leaves it at a false default) runs only the
    branch ``terms.branches_for`` keeps; any other runs the branch the flag
    enables, the one sglang's default configuration takes (overlap
    scheduling on: ``Scheduler.enable_overlap = not
    disable_overlap_schedule``, scheduler.py). A ``spec_class`` that
    replaces ``create_worker`` without delegating skips the refusal: the
    default configuration's branch again. A registration whose keywords are
    unpacked from a mapping says nothing: every branch.
    """
    flag = terms.overlap_flag
    if not registrations or flag is None or not (terms.branch_shapes or terms.branch_only):
        return RegisteredTerms(
            capabilities=_capabilities(registrations), bound_keywords=_bound(registrations)
        )
    every = terms.branches_for({flag: True})
    enabled = every - terms.branches_for({flag: False}) or every
    branches: set[str] = set()
    # The branches it can run at all: a server may turn overlap scheduling
    # off for any algorithm, never on for one whose create_worker refuses it.
    possible: set[str] = set()
    for registration in registrations:
        if "**" in registration.dynamic:
            branches |= every
            possible |= every
        elif registration.replaces_create_worker:
            branches |= enabled
            possible |= every
        else:
            allowed = terms.branches_for(registration.keywords())
            branches |= allowed if allowed != every else enabled
            possible |= allowed
    unreached = frozenset(m for m, branch in terms.branch_only.items() if branch not in possible)
    calls: dict[str, list[object]] = {}
    for branch in sorted(branches):
        for member, shape in terms.branch_shapes.get(branch, {}).items():
            if shape not in calls.setdefault(member, []):
                calls[member].append(shape)
    capabilities = _capabilities(registrations) if branches & enabled else ()
    return RegisteredTerms(
        frozenset(branches), {m: tuple(s) for m, s in calls.items()}, capabilities, _bound(registrations), unreached
    )


def class_terms(dotted: str, registrations: Sequence[Registration], terms: ReleaseBranches) -> RegisteredTerms:
    """What the class ``dotted`` is held to beyond its role's protocol: its
    registrations' terms (:func:`registered_terms`); for a built-in worker,
    which the release's own ``create_worker`` returns, the members it never
    meets (``ReleaseTerms.built_in_unreached``)."""
    if registrations:
        return registered_terms(registrations, terms)
    never = terms.built_in_unreached.get(dotted, frozenset())
    return RegisteredTerms(unreached=never)


def _capabilities(registrations: Sequence[Registration]) -> tuple[str, ...]:
    predicates = {p for r in registrations for p in r.capabilities}
    return tuple(c for c in CAPABILITIES if _predicate(c) in predicates)


def _bound(registrations: Sequence[Registration]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for r in registrations for k in r.bound_keywords))
