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

The keywords of a construction call are the release's
(:attr:`ReleaseTerms.constructor_keywords`, ``.draft_factory_keywords``), or,
where the release has no such call, the factory protocol's own
(:func:`spec_protocols._members.call_keywords`): never a copy.

This module imports no checker and no stage: the runtime probe reads it in
its subprocess, before any target code runs.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from typing_extensions import Protocol

from spec_protocols._members import call_keywords
from spec_protocols._protocols import PROTOCOL_NAMES
from spec_protocols.gate._model import ClassRole, ProtocolName

__all__ = ["CAPABILITIES", "Construction", "ReleaseKeywords", "RolePolicy", "policy", "policy_for", "role_policies"]

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
    construction: Construction | None
    #: Whether an intentional base (``DiscoveredClass.may_be_abstract``) may be
    #: abstract, with a note; ``False``: sglang instantiates the class itself.
    excuses_abstract_base: bool
    #: A role whose construction is the one sglang makes when the class plays it too.
    built_as: ClassRole | None = None
    #: Whether what it inherits from ``BaseSpecWorker`` is checked with it.
    inherits_defaults: bool = False

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


_POLICIES: Mapping[ClassRole, RolePolicy] = {
    ClassRole.SPEC_WORKER: RolePolicy(
        ClassRole.SPEC_WORKER,
        members=ProtocolName.SPEC_WORKER,
        construction=Construction.SCHEDULER,
        excuses_abstract_base=True,
        inherits_defaults=True,
    ),
    ClassRole.DRAFT_WORKER: RolePolicy(
        ClassRole.DRAFT_WORKER,
        members=ProtocolName.DRAFT_WORKER,
        construction=None,
        excuses_abstract_base=True,
        built_as=ClassRole.INJECTED,
    ),
    ClassRole.INJECTED: RolePolicy(
        ClassRole.INJECTED,
        members=None,
        construction=Construction.DRAFT_FACTORY,
        excuses_abstract_base=False,
    ),
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
