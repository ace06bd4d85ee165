"""What a checker found, decided but not yet worded: plain frozen values, like the model.

One kind of finding per shape of fact, a small union (:data:`AnyFinding`):
:class:`Finding` (what a static checker read on the harness: a member, its
reasons, the expected and the got parts), :class:`ClassDiagnostic` (a
checker's own error at a class's own line), :class:`BodyDiagnostics` (how
many it reports elsewhere in the class's bodies), :class:`RuntimeFinding`
(what the runtime checker found on the class as imported). Each is worded in
:mod:`._words`, nowhere else.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["AnyFinding", "BodyDiagnostics", "ClassDiagnostic", "Finding", "Got", "ReplayFinding", "RuntimeFinding", "Wrong"]


class Wrong(enum.Enum):
    """What a finding says is wrong (or could not be seen, or is worth a note)."""

    #: An error outside every class's lines: the harness itself was not checked.
    HARNESS_UNCHECKED = "harness_unchecked"
    #: The checker could not import the class.
    NOT_IMPORTABLE = "not_importable"
    #: The checker sees the class as Any/Unknown.
    CLASS_ANY = "class_any"
    #: The class is abstract, and sglang instantiates it.
    ABSTRACT = "abstract"
    #: The constructor cannot take the call sglang makes.
    CONSTRUCTOR = "constructor"
    #: A member the call site needs is missing.
    MISSING = "missing"
    #: A method's signature does not take the calls sglang makes.
    SIGNATURE = "signature"
    #: A property's type is not the one sglang reads.
    TYPE = "type"
    #: A method sglang calls as a statement returns a coroutine or a generator
    #: (an ``async def``, a ``yield`` in its body): the call only makes one, so
    #: the body never runs.
    BODY_NEVER_RUNS = "body_never_runs"
    #: The class cannot be used as ``draft_worker_cls``.
    FACTORY = "factory"
    #: A member does not match, as the whole-protocol line (or a presence line) says.
    MISMATCH = "mismatch"
    #: The class does not satisfy the protocol, and the checker names no member.
    PROTOCOL = "protocol"
    #: What a kept BaseSpecWorker default uses on the draft worker is not there.
    NEED = "need"
    #: The checker sees a member as Any.
    MEMBER_ANY = "member_any"
    #: The checker sees a method's signature as ``(...) -> Any``.
    MEMBER_GRADUAL = "member_gradual"
    #: A note: the draft worker the kept defaults read is Any to the checker.
    DRAFT_WORKER_ANY = "draft_worker_any"
    #: A note: the class is an intentional abstract base.
    ABSTRACT_BASE = "abstract_base"
    #: An injection site the checker cannot check.
    SITE_UNCHECKABLE = "site_uncheckable"
    #: The module of an injection site cannot be imported.
    SITE_NOT_IMPORTABLE = "site_not_importable"
    #: What an injection site builds is not a DraftWorker.
    SITE_BUILDS = "site_builds"
    #: ``build_draft_tp_worker``'s call of an injection site fails.
    SITE_CALL = "site_call"
    #: What an injection site builds is Any to the checker.
    SITE_ANY = "site_any"
    #: A construct the checker cannot model (attrs' generated ``__init__``, a
    #: ``functools.cached_property``, a member only ``__getattr__`` gives an
    #: instance): its column is unverified, and another checker's pass decides.
    UNMODELLED = "unmodelled"


@dataclass(frozen=True, slots=True)
class Got:
    """What the class has for a member: the "got" half of a message."""

    member: str
    #: The definition a lookup on the class finds, as its file writes it; None: none.
    definition: str | None = None
    #: The class's short name; None: the gate does not know the class.
    owner: str | None = None
    #: Whether the gate read every base of the class below sglang's roots.
    bases_read: bool = True


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a checker found for one check."""

    wrong: Wrong
    checker: str
    #: The member it concerns (``__init__`` for the construction); None: the class.
    member: str | None = None
    #: The harness line it was read on (1-based), where there is one.
    line: int | None = None
    #: The checker's own reasons, stripped of its headlines.
    reasons: tuple[str, ...] = ()
    #: What the call site needs, in the protocol's words (the "expected" half).
    expected: str | None = None
    #: What the class has (the "got" half).
    got: Got | None = None
    #: Who it is about, in a message: the class's short name, or a site's expression.
    subject: str | None = None
    #: What else the words need: the checker's summary of an import error,
    #: the protocol not satisfied, a kept default's use of the draft worker,
    #: what a site builds, why a site cannot be checked, the abstract
    #: members an abstract class must implement.
    detail: str | None = None
    #: What it claims that the replay can settle, where its kind does not say
    #: (``Problem.claim``; a need behind server flags). Never rendered.
    claim: str | None = None


@dataclass(frozen=True, slots=True)
class ClassDiagnostic:
    """The checker's own error at one of a class's own lines (its statement,
    its members' definitions, its constructor): the class's problem, at that line."""

    checker: str
    #: The member whose lines hold it (``__init__`` for the constructor); None: the class statement.
    member: str | None
    #: Where it stands in the plugin's source.
    file: Path
    line: int
    #: Its message, line by line, as the checker wrote it.
    lines: tuple[str, ...]
    #: The checker's error code, where it gives one.
    code: str | None = None


@dataclass(frozen=True, slots=True)
class BodyDiagnostics:
    """A note: how many errors the checker reports inside the class's other
    member bodies (the author's own type-check, not a verdict)."""

    checker: str
    count: int


#: What a runtime finding is: a problem the verification words
#: (``verify_conformance``: its ``kind`` and words, met where ``context``
#: says), one the construction reading or ``validate_draft_worker_cls`` words
#: whole (``worded``), a note on the constructor's signature (``note``), an
#: abstract class sglang builds (``abstract``; ``said``: the members), the
#: constructor sglang calls and how (``call``; ``said``: the callee, its
#: signature; ``passed``: the keywords), a hook found by name that is a
#: method where sglang iterates it (``iterated_method``), a member the release
#: calls that the class does not define (``presence``), an import that fails
#: the class (``import``; ``said``: why).
RuntimeKind = Literal["verification", "worded", "note", "abstract", "call", "iterated_method", "presence", "import"]
#: Where sglang meets what a verification found: a protocol member on the
#: instance, the constructor call, a hook found by name, a capability.
RuntimeContext = Literal["member", "constructor", "hook", "capability"]


@dataclass(frozen=True, slots=True)
class RuntimeFinding:
    """What the runtime checker found on the class as the import left it."""

    member: str | None
    kind: RuntimeKind
    #: The fact's own text (see :data:`RuntimeKind`).
    said: str = ""
    #: The verification's category (``missing``, ``kind``, ``signature``...), for ``kind="verification"``.
    category: str = ""
    context: RuntimeContext = "member"
    #: The capability protocol, for ``context="capability"``.
    capability: str | None = None
    #: The keywords sglang's call passes, for ``kind="call"``.
    passed: str = ""
    #: What sglang calls, for ``kind="abstract"``: the protocol's signature of
    #: each abstract member that is one of its members (``; expected `` between two).
    expected: str = ""


#: What the replay found, replaying sglang's calls on what it builds:
#: ``registration`` (registering raised), ``factory`` (the registered factory
#: cannot take ``create_worker``'s call, or returns nothing the scheduler can
#: build), ``constructor`` (the scheduler's constructor call does not bind),
#: ``raised`` (a TypeError or AttributeError at the boundary: sglang's call of
#: the plugin's code, or the plugin's of sglang's, inside the construction),
#: ``missing``/``kind``/``signature``/``async``/``generator`` (a member as the
#: instance has it, against sglang's use of it), ``draft`` (the draft worker
#: class ``build_draft_tp_worker`` was given cannot be built), ``stopped``
#: (the replay could not go on: an exception inside the plugin's own code or
#: inside sglang's with its stand-ins; a blind spot, never a failure).
ReplayKind = Literal[
    "registration", "factory", "constructor", "raised", "missing", "kind", "signature", "async", "generator", "draft", "stopped", "result"
]


@dataclass(frozen=True, slots=True)
class ReplayFinding:
    """What the replay found on the instance sglang builds."""

    member: str | None
    kind: ReplayKind
    #: The fact in the replay's words: the exception, or how the call and the member differ.
    said: str
    #: sglang's call that meets it ("managers/scheduler.py: Scheduler.maybe_init_draft_worker").
    site: str = ""
    #: Where in the plugin's code it happened ("plugin.py:12"), when it did there.
    where: str = ""


#: Every kind of finding.
AnyFinding = Finding | ClassDiagnostic | BodyDiagnostics | RuntimeFinding | ReplayFinding
