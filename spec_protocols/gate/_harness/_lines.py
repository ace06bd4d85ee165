"""The harness: one generated module per run that mypy and pyright both check.

For every discovered class ``C`` (``w: C`` an instance) and every protocol
``P`` it is checked against, the harness holds lines of these kinds, each
tagged so that a checker's diagnostic on that line maps back to
``(C, P, member)``; every line belongs to one class, so one class never
changes another's verdict:

``import``
    ``import m as _m0`` and the function taking ``w: C``: an error here means
    the checker cannot find ``C`` (``unverified``).
``canary`` (must error)
    ``C.spec_protocols_canary_member`` and ``w.spec_protocols_canary_member``:
    no class has that member. A silent class-object canary means the checker
    saw ``C`` as ``Any``/``Unknown`` (``unverified``). A silent instance
    canary means ``C`` has a ``__getattr__``: then the class-object member
    lines below decide, since ``__getattr__`` does not apply to them.
``protocol``
    ``_p: P = w``: the whole structural check, as a user would write it; its
    message is kept only when no member line says more.
per member
    ``C.member`` (present on the class object; authoritative for a class with
    ``__getattr__``); ``_a: _Canary = C.member`` (must error, or the member is
    ``Any``: that member is ``unverified``); for a method, ``_u: _P__member =
    w.member`` (its signature as a caller of an instance meets it, so a
    ``staticmethod`` or ``classmethod`` is judged by the calls it accepts) and
    ``_g: _Gradual = w.member`` (must error, or the signature is
    ``(...) -> Any`` and the member is ``unverified``); for a property,
    ``_t: T = w.member``. For a release outside the supported range the
    method's signature is the protocol's as that release calls it
    (:attr:`ReleaseTerms.call_shapes`, :func:`_as_called`). A method whose
    value the release never uses (:attr:`ReleaseTerms.discarded`) is held to
    an ``object`` result (:func:`as_discarded`) and gets two lines of its
    own: ``_w: _Deferring = w.member`` (a coroutine function or a generator
    function passes it: its call runs none of its body; so it must error)
    and ``_r: _Resulting = w.member`` (must error, or the result is ``Any``
    and the first line tells nothing).
``registered`` (a class with registrations, or a built-in worker: :func:`~spec_protocols.gate._roles.class_terms`)
    A spec worker member whose calls differ by scheduler branch is checked
    against each call the branches its registration selects make
    (``supports_overlap=False``: the synchronous ``forward_batch_generation(batch,
    pp_proxy_tensors=...)`` alone, scheduler.py ``run_batch``), in place of
    the protocol's signature (and of the whole-protocol line); the capability
    protocols its ``spec_class`` turns on get their members' lines
    (``SupportsGrammarOverlap``: the overlap call's ``grammar_barrier=``); the
    keywords a ``create_worker`` partial binds are passed in the constructor
    call, as ``Any``. A class without registrations gets the same text as before.
``constructor``
    How sglang builds the class, as its role says
    (:mod:`spec_protocols.gate._roles`): a spec worker as the scheduler does
    (``SpecWorkerFactory``'s keywords), an injected class as
    ``build_draft_tp_worker`` does (``DraftWorkerFactory``'s). Reports a
    keyword the constructor cannot take and an abstract class. A draft worker
    that its own spec worker builds gets a bare ``C()`` of which only
    "abstract" errors count. A class that may be abstract (an intentional
    base) gets a note instead of a failure for being abstract, in a role that
    excuses it.

Injected draft worker classes also get ``_f: DraftWorkerFactory[InjectableDraftWorker] = C``
(when the release passes the protocol's keywords).
The module imports only the names its lines use, and writes a callback
protocol only for a signature a line checks: a name that another member's
signature uses may not exist in the release checked.
Modules that hold injection sites are imported at the end, one line per site
(their shadows are checked; see :mod:`spec_protocols.gate._harness._sites`).
The protocols' own text (callback protocols, signatures as a release calls
them, construction calls) is :mod:`spec_protocols.gate._harness._protocol_source`.

The harness is built only from validated identifiers (module and class names
that are Python identifiers) and from the protocol signatures in this
package's own source, so no target name can inject code into it. It is never
executed.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from spec_protocols._members import ProtocolMember
from spec_protocols.gate._contract import CallShape, DraftNeed, ReleaseTerms, flags_claim, flags_words, kept_default_needs, release_terms
from spec_protocols.gate._harness._draft_reads import built_by, built_drafts
from spec_protocols.gate._harness._protocol_source import (
    CallbackNames,
    annotation_names,
    as_called,
    as_discarded,
    check_identifier,
    factory_expected,
    hook_protocols,
    hook_reads,
    hooks_held,
    keyword_parameters,
    protocol_members,
)
from spec_protocols.gate._harness._regions import ClassRegions, class_regions
from spec_protocols.gate._model import Check, DiscoveredClass, ProtocolName
from spec_protocols.gate._roles import (
    Construction,
    RegisteredTerms,
    RolePolicy,
    class_terms,
    policy,
    policy_for,
    role_policies,
)
from spec_protocols.gate._signatures import describe_function

__all__ = [
    "CANARY_MEMBER",
    "Harness",
    "LineKind",
    "LineTag",
    "ProtocolMember",
    "build_harness",
    "keyword_parameters",
    "protocol_members",
]

CANARY_MEMBER = "spec_protocols_canary_member"


class LineKind(enum.Enum):
    IMPORT = "import"  # the class's import and the annotation naming it
    PROTOCOL = "protocol"  # the whole structural check
    MEMBER = "member"  # the member read on the class object (authoritative with __getattr__)
    MEMBER_SIGNATURE = "member_signature"  # a method, read on an instance, against its signature
    MEMBER_TYPE = "member_type"  # a property's type, read on an instance
    MEMBER_ANY = "member_any"  # canary: the member on the class object must not be Any
    MEMBER_GRADUAL = "member_gradual"  # canary: a method's signature must not be `(...) -> Any`
    MEMBER_PRESENT = "member_present"  # a member no protocol defines, read on an instance (presence only)
    MEMBER_DEFERRED = "member_deferred"  # must error: a method whose result sglang drops runs its body when called
    MEMBER_RESULT = "member_result"  # canary for MEMBER_DEFERRED: the method's result must not be Any
    NEEDS = "needs"  # what a kept BaseSpecWorker default uses on the draft worker
    NEEDS_ANY = "needs_any"  # canary: the draft worker those defaults read must not be Any
    CANARY_INSTANCE = "canary_instance"
    CANARY_CLASS = "canary_class"
    FACTORY = "factory"
    CONSTRUCTOR = "constructor"  # the call sglang makes to build it
    ABSTRACT = "abstract"  # a bare call: only "cannot instantiate abstract class" counts
    SITE = "site"  # imports a module that holds injection sites (see sites.py)


@dataclass(frozen=True, slots=True)
class LineTag:
    kind: LineKind
    target: str  # dotted class path (or a site's target)
    check: Check | None = None
    member: str | None = None
    is_property: bool = False
    #: For NEEDS lines: the inherited use and its fix, in words.
    need: str | None = None
    #: What the line asks of the class, in the protocol's words
    #: (``SpecWorker.forward_batch_generation(self, batch: ScheduleBatch, /,
    #: ...) -> GenerationBatchResult``): the "expected" half of a problem.
    expected: str | None = None
    #: What the line's problem claims that the replay can settle, where the
    #: line's kind does not say (a need behind server flags: ``flags_claim``).
    claim: str | None = None


@dataclass(frozen=True, slots=True)
class Harness:
    module_name: str
    text: str
    tags: Mapping[int, LineTag]  # 1-based line -> tag
    checks: tuple[Check, ...]
    #: Targets that may be abstract without failing (see DiscoveredClass.may_be_abstract).
    may_be_abstract: frozenset[str] = frozenset()
    #: The classes checked, by dotted path: where each member is defined and
    #: what it is (the "got" half of a problem, and its file and line).
    classes: Mapping[str, DiscoveredClass] = field(default_factory=dict[str, DiscoveredClass])
    #: Each class's own lines in its source (by dotted path): where what the
    #: checkers report is its problem (see :mod:`spec_protocols.gate._harness._regions`).
    regions: Mapping[str, ClassRegions] = field(default_factory=dict[str, ClassRegions])
    #: The protocols' sglang names the lines use that the release checked
    #: against lacks (name -> the module it is not in): written as ``Any``,
    #: so what is annotated with them is not checked (the run's note says so).
    lacking: Mapping[str, str] = field(default_factory=dict[str, str])


#: The canaries' types. Nothing real is a ``_Canary``, returns a
#: ``_CanaryResult`` or accepts eight ``_CanaryArg`` positionals and the
#: ``spec_protocols_canary_kw`` keyword; so each canary line must error, and a
#: silent one means the checker saw ``Any`` (or a gradual ``(...) -> Any``).
_CANARY_TYPES = f"""\
class _Canary(Protocol):
    def {CANARY_MEMBER}(self) -> None: ...

class _CanaryArg: ...

class _CanaryResult: ...

class _Gradual(Protocol):
    def __call__(self, a1: _CanaryArg, a2: _CanaryArg, a3: _CanaryArg, a4: _CanaryArg, a5: _CanaryArg, a6: _CanaryArg, a7: _CanaryArg, a8: _CanaryArg, /, *, spec_protocols_canary_kw: _CanaryArg) -> _CanaryResult: ...
"""

#: The types of a dropped result's lines (see the module docstring): any
#: call that returns what defers a body (a coroutine, a generator, an async
#: generator: an awaitable or an iterator), and any call that returns a
#: ``_CanaryResult`` (``*args: Any, **kwargs: Any`` is ``...`` to both checkers).
_DROPPED_RESULT_TYPES = """\
class _Awaited(Protocol):
    def __await__(self) -> Any: ...

class _Iterated(Protocol):
    def __next__(self) -> Any: ...

class _AsyncIterated(Protocol):
    def __anext__(self) -> Any: ...

class _Deferring(Protocol):
    def __call__(self, *args: Any, **kwargs: Any) -> _Awaited | _Iterated | _AsyncIterated: ...

class _Resulting(Protocol):
    def __call__(self, *args: Any, **kwargs: Any) -> _CanaryResult: ...
"""


#: The key, in a harness's definitions, of ``DraftWorker``'s members as the
#: protocol writes them, where the release drops some of their results (the
#: ``DraftWorker`` key then holds those results as ``object``): what the
#: needs of a kept default are held to.
DRAFT_AS_WRITTEN = f"{ProtocolName.DRAFT_WORKER}_as_written"

#: The class whose defaults a worker may keep, and so inherit their needs.
BASE_SPEC_WORKER = "sglang.srt.speculative.base_spec_worker.BaseSpecWorker"


def build_harness(
    classes: Sequence[DiscoveredClass],
    module_name: str = "spec_protocols_harness",
    *,
    site_modules: Mapping[str, Sequence[str]] | None = None,
    terms: ReleaseTerms | None = None,
    absent: Mapping[str, str] | None = None,
) -> Harness:
    """Generate the harness module for ``classes``, checked on ``terms`` (the
    release's members, keywords and inherited needs; default: the newest
    supported release's protocols, whole).

    ``absent``: the protocols' sglang names the release checked against does
    not define where the checkers read it (``release_lacks``: name -> its
    module); each the lines use is written as ``Any`` instead of imported
    (:attr:`Harness.lacking`).

    ``site_modules`` maps each module holding injection sites to the site
    targets in it; the harness imports those modules so that both checkers
    check them (their shadows, see :mod:`spec_protocols.gate._harness._sites`).

    The module is written in three parts: the imports (of the names the
    rest uses), the callback protocols of the signatures the lines check
    (only those: a name another member's signature uses may not exist in
    the release checked, as HiCacheDraftPlan in 0.5.5), and the lines.
    """
    terms = terms if terms is not None else release_terms(None)
    registered = {
        c.dotted: class_terms(c.dotted, c.registrations, terms)
        for c in classes
        if c.registrations or c.dotted in terms.built_in_unreached
    }
    definitions = _definitions(classes, terms, registered.values())
    shaped = _registered_calls(definitions, registered.values())
    bound = CallbackNames(definitions)
    out = _Lines()
    for index, cls in enumerate(sorted(classes, key=lambda c: c.dotted)):
        held = registered.get(cls.dotted, RegisteredTerms())
        _ClassLines(out, index, cls, terms, definitions, bound, held, shaped, classes).write()
    for index, (module, targets) in enumerate(sorted((site_modules or {}).items())):
        check_identifier(module, "module name")
        for site_target in targets:
            # One line per site, so that an import error reaches each of them.
            out.emit(f"import {module} as _s{index}", LineTag(LineKind.SITE, site_target))

    callbacks = bound.callbacks() + hook_protocols(terms)
    head, lacking = _head([_CANARY_TYPES, _DROPPED_RESULT_TYPES, *callbacks, *out.lines], frozenset(absent or {}))
    head += _CANARY_TYPES.splitlines()
    head.append("")
    head += _DROPPED_RESULT_TYPES.splitlines()
    head.append("")
    head += callbacks
    text = "\n".join([*head, *out.lines]) + "\n"
    shifted = {n + len(head): t for n, t in out.tags.items()}
    may_be_abstract = frozenset(c.dotted for c in classes if c.may_be_abstract)
    by_target = {c.dotted: c for c in classes}
    regions = class_regions(classes)
    written = {name: (absent or {})[name] for name in lacking}
    return Harness(module_name, text, shifted, tuple(sorted(set(out.checks))), may_be_abstract, by_target, regions, written)


def _definitions(
    classes: Sequence[DiscoveredClass], terms: ReleaseTerms, registered: Iterable[RegisteredTerms] = ()
) -> dict[str, dict[str, ProtocolMember]]:
    """The members whose signatures the lines check, by protocol, as the release calls them.

    The protocols the classes' roles hold them to, member by member; the
    draft worker's, for what a kept default needs of it; and the
    capabilities that write the hooks a BaseSpecWorker subclass is called
    with (``terms.nominal_hooks``), and those a registration turns on
    (``RegisteredTerms.capabilities``).
    """
    held = {p.members for c in classes for p in map(policy, c.roles) if p.members is not None}
    turned_on = {c for r in registered for c in r.capabilities}
    definitions: dict[str, dict[str, ProtocolMember]] = {}
    for protocol in sorted({*held, ProtocolName.DRAFT_WORKER, *terms.nominal_hooks.values(), *turned_on}):
        shapes = terms.call_shapes.get(protocol, {})
        dropped = terms.discarded.get(protocol, frozenset())
        called = (
            as_called(m, shapes[m.name]) if m.name in shapes and not m.is_property else m
            for m in protocol_members(protocol, terms.pin)
        )
        members = list(called)
        definitions[protocol] = {m.name: as_discarded(m) if m.name in dropped and not m.is_property else m for m in members}
        if protocol == ProtocolName.DRAFT_WORKER and dropped:
            # What a kept default needs of the draft worker keeps the
            # protocol's result (a need's line has no line of its own to
            # refuse a coroutine or a generator; ``None`` does).
            definitions[DRAFT_AS_WRITTEN] = {m.name: m for m in members}
    return definitions


def _registered_calls(
    definitions: dict[str, dict[str, ProtocolMember]], registered: Iterable[RegisteredTerms]
) -> dict[tuple[str, CallShape], str]:
    """``(member, call shape)`` -> the key, in ``definitions``, of the spec
    worker's member as the scheduler's branch a registration selects calls it
    (``RegisteredTerms.calls``; ``SpecWorker_call0``), each distinct shape
    once: its callback protocol is written only when a line checks it."""
    members = definitions.get(ProtocolName.SPEC_WORKER, {})
    keys: dict[tuple[str, CallShape], str] = {}
    for held in registered:
        for name, shapes in sorted(held.calls.items()):
            member = members.get(name)
            if member is None or member.is_property:
                continue
            for shape in shapes:
                call = cast(CallShape, shape)
                if (name, call) not in keys:
                    key = keys[(name, call)] = f"{ProtocolName.SPEC_WORKER}_call{len(keys)}"
                    definitions[key] = {name: as_called(member, call)}
    return keys


class _Lines:
    """The harness's lines as they are written, with the tag of each that has one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.tags: dict[int, LineTag] = {}
        self.checks: list[Check] = []

    def emit(self, text: str, tag: LineTag | None = None) -> None:
        self.lines.append(text)
        if tag is not None:
            self.tags[len(self.lines)] = tag


@dataclass
class _ClassLines:
    """The lines of one class: every line belongs to it, so it never changes another's verdict."""

    out: _Lines
    index: int
    cls: DiscoveredClass
    terms: ReleaseTerms
    definitions: Mapping[str, Mapping[str, ProtocolMember]]
    bound: Mapping[tuple[str, str], str]
    #: What the class's registrations hold it to (:func:`registered_terms`;
    #: empty without registrations: the protocol's calls, as pinned).
    registered: RegisteredTerms = field(default_factory=RegisteredTerms)
    #: ``(member, call shape)`` -> its key in :attr:`definitions` (:func:`_registered_calls`).
    shaped: Mapping[tuple[str, CallShape], str] = field(default_factory=dict[tuple[str, CallShape], str])
    #: Every class of the run (what it injects, for :func:`built_drafts`).
    others: Sequence[DiscoveredClass] = ()

    def __post_init__(self) -> None:
        check_identifier(self.cls.module, "module name")
        check_identifier(self.cls.qualname, "class name")

    @property
    def alias(self) -> str:
        return f"_m{self.index}"

    @property
    def ref(self) -> str:
        return f"{self.alias}.{self.cls.qualname}"

    def tag(
        self,
        kind: LineKind,
        check: Check | None = None,
        member: str | None = None,
        prop: bool = False,
        need: str | None = None,
        expected: str | None = None,
        claim: str | None = None,
    ) -> LineTag:
        return LineTag(kind, self.cls.dotted, check, member, prop, need, expected, claim)

    def emit(self, text: str, tag: LineTag | None = None) -> None:
        self.out.emit(text, tag)

    def write(self) -> None:
        cls, ref = self.cls, self.ref
        self.emit(f"import {cls.module} as {self.alias}", self.tag(LineKind.IMPORT))
        self.emit(f"def _check_{self.index}(w: {ref}) -> None:", self.tag(LineKind.IMPORT))
        # An attribute no class has, read on an instance: silent only when the
        # class has a __getattr__ (a protocol assignment would not tell: pyright
        # matches protocols without __getattr__, but reads attributes with it).
        self.emit(f"    w.{CANARY_MEMBER}", self.tag(LineKind.CANARY_INSTANCE))
        self.emit(f"    {ref}.{CANARY_MEMBER}", self.tag(LineKind.CANARY_CLASS))
        for check in cls.checks:
            self.out.checks.append(check)
            self.write_check(check, policy_for(check.protocol))
        # How sglang builds it, as each of its roles says (spec_protocols.gate._roles).
        roles = [p for p in role_policies() if p.role in cls.roles]
        for role in roles:
            if role.construction is not None:
                self.write_construction(role, role.construction)
        for role in roles:
            if role.bare_construction(cls.roles):
                # Its own spec worker builds it, with arguments of its own:
                # of a bare call, only "abstract" errors count.
                check = Check(cls.dotted, role.protocol)
                self.emit(f"def _abstract_{self.index}() -> None:", self.tag(LineKind.ABSTRACT, check, "__init__"))
                self.emit(f"    {ref}()", self.tag(LineKind.ABSTRACT, check, "__init__"))
        self.emit("")

    def write_check(self, check: Check, role: RolePolicy) -> None:
        """The lines of ``check``: its protocol's members, one by one, or its construction as a whole."""
        p = role.members
        if p is None:
            # Held to its construction: the class object as the factory
            # protocol, where the release passes the protocol's keywords
            # (otherwise the construction line checks what it builds).
            construction = role.construction
            if construction is not None and construction.as_protocol_writes(self.terms):
                factory, builds = construction.factory, construction.builds
                expected = factory_expected(factory, None, builds)
                annotation = f"{factory}[{builds}]" if builds is not None else str(factory)
                self.emit(f"    _f: {annotation} = {self.ref}", self.tag(LineKind.FACTORY, check, "__init__", expected=expected))
            return
        no_calls: Mapping[str, tuple[object, ...]] = {}
        calls = self.registered.calls if p == ProtocolName.SPEC_WORKER else no_calls
        # Members only a branch its algorithm never runs uses are not required of it.
        unreached = self.registered.unreached if p == ProtocolName.SPEC_WORKER else frozenset[str]()
        # A registered class is held to its branches' calls, not to the
        # protocol's signature of those members: the whole protocol would be.
        if p in self.terms.whole and not calls and not unreached:
            self.emit(f"    _p_{p}: {p} = w", self.tag(LineKind.PROTOCOL, check))
        for n, name in enumerate(self.terms.checked(p)):
            if name not in unreached:
                self.write_member(check, p, n, self.definitions[p][name], calls.get(name, ()))
        self.write_contract_hooks(check, p)
        if p == ProtocolName.SPEC_WORKER:
            self.write_capabilities(check)
        if role.holds_factories:
            self.write_factories(check)
        if role.inherits_defaults:
            for name in self.terms.presence:
                if name in unreached:
                    continue
                check_identifier(name, "member name")
                # Where the release uses it, when that is one branch or behind server flags only.
                where = self.terms.path_words(name)
                present = f"{name} (no protocol defines it){where}" if where else None
                self.emit(f"    {self.ref}.{name}", self.tag(LineKind.MEMBER, check, name, expected=present))
                self.emit(f"    w.{name}", self.tag(LineKind.MEMBER_PRESENT, check, name, expected=present))
            self.write_hooks(check)
            self.write_needs(check)

    def write_member(
        self, check: Check, p: str, n: int, member: ProtocolMember, calls: Sequence[object] = ()
    ) -> None:
        """``member``'s lines; ``calls``: the call shapes the class's
        registrations select (:attr:`RegisteredTerms.calls`), each checked in
        place of the protocol's signature."""
        name, prop, ref = member.name, member.is_property, self.ref
        # The member as the protocol writes it, for the reader (and where
        # sglang uses it, when that is one scheduler branch only).
        written = describe_function(p, member.node) + (self.terms.path_words(name) if p == ProtocolName.SPEC_WORKER else "")
        self.emit(f"    {ref}.{name}", self.tag(LineKind.MEMBER, check, name, prop, expected=written))
        self.emit(f"    _a{n}_{p}: _Canary = {ref}.{name}", self.tag(LineKind.MEMBER_ANY, check, name, prop))
        keys = [self.shaped[(name, cast(CallShape, c))] for c in calls if (name, c) in self.shaped]
        if prop:
            assert member.node.returns is not None
            annotation = ast.unparse(member.node.returns)
            self.emit(f"    _t{n}_{p}: {annotation} = w.{name}", self.tag(LineKind.MEMBER_TYPE, check, name, prop, expected=written))
        elif keys:
            # As each scheduler branch the registration selects calls it.
            for j, key in enumerate(keys):
                called = describe_function(p, self.definitions[key][name].node)
                tag = self.tag(LineKind.MEMBER_SIGNATURE, check, name, expected=f"{called} (as the scheduler calls it)")
                self.emit(f"    _u{n}c{j}_{p}: {self.bound[(key, name)]} = w.{name}", tag)
            self.emit(f"    _g{n}_{p}: _Gradual = w.{name}", self.tag(LineKind.MEMBER_GRADUAL, check, name))
        else:
            self.emit(
                f"    _u{n}_{p}: {self.bound[(p, name)]} = w.{name}",
                self.tag(LineKind.MEMBER_SIGNATURE, check, name, expected=written),
            )
            self.emit(f"    _g{n}_{p}: _Gradual = w.{name}", self.tag(LineKind.MEMBER_GRADUAL, check, name))
        if member.returns_object:
            # sglang drops the result, so any will do but a coroutine's or a
            # generator's: the call would only make one, and the body never run.
            self.emit(f"    _w{n}_{p}: _Deferring = w.{name}", self.tag(LineKind.MEMBER_DEFERRED, check, name, expected=written))
            self.emit(f"    _r{n}_{p}: _Resulting = w.{name}", self.tag(LineKind.MEMBER_RESULT, check, name))

    def write_factories(self, check: Check) -> None:
        """Each factory the class's registrations register, where the gate can
        name it (a function of its module), against ``WorkerClassFactory``:
        ``CustomSpecAlgo.create_worker`` calls it as ``self.factory(server_args)``
        (spec_registry.py), so one that cannot take a positional argument
        raises there. The line is the algorithm object's (member ``factory``):
        its ``create_worker`` is what fails."""
        factory = ProtocolName.WORKER_CLASS_FACTORY
        expected = f"{describe_function(factory, self.definitions_call(factory))} (CustomSpecAlgo.create_worker: self.factory(server_args))"
        names = dict.fromkeys(r.factory for r in self.cls.registrations if r.factory is not None)
        for n, dotted in enumerate(names):
            module, _, name = dotted.rpartition(".")
            check_identifier(module, "module name")
            check_identifier(name, "function name")
            tag = self.tag(LineKind.MEMBER_SIGNATURE, check, "factory", expected=f"{dotted}: {expected}")
            self.emit(f"    import {module} as _rf{n}", tag)
            self.emit(f"    _rfc{n}: {factory} = _rf{n}.{name}", tag)

    @staticmethod
    def definitions_call(factory: str) -> ast.FunctionDef:
        """The ``__call__`` of a factory protocol, as written."""
        return next(m.node for m in protocol_members(factory) if m.name == "__call__")

    def write_contract_hooks(self, check: Check, p: str) -> None:
        """The hooks sglang finds with ``getattr``/``hasattr`` on a ``p`` worker
        (:attr:`ReleaseTerms.hooks`), where this class defines the member: its
        value, read on an instance, against the capability protocol generated
        from what sglang does with it (``_protocol_source.hook_protocol``), and a
        canary that must error (silent: the member is ``Any``, ``unverified``)."""
        for n, term in enumerate(hooks_held(self.terms, p, self.cls.overrides)):
            name, expected = term.member, term.expected()
            for line in hook_reads(term, f"_hk{n}_{p}"):
                self.emit(line, self.tag(LineKind.MEMBER_SIGNATURE, check, name, expected=expected))
            canary = ("_Gradual", LineKind.MEMBER_GRADUAL) if term.call is not None else ("_Canary", LineKind.MEMBER_ANY)
            self.emit(f"    _hkc{n}_{p}: {canary[0]} = w.{name}", self.tag(canary[1], check, name))

    def write_capabilities(self, check: Check) -> None:
        """The capability protocols the class's registration turns on
        (:attr:`RegisteredTerms.capabilities`: ``supports_grammar_overlap()``
        -> the scheduler's overlap call adds ``grammar_barrier=``, scheduler.py
        run_batch): each member read on an instance as the capability writes it."""
        for c, capability in enumerate(self.registered.capabilities):
            for n, member in enumerate(self.definitions.get(capability, {}).values()):
                name = member.name
                written = describe_function(capability, member.node)
                if member.is_property:
                    assert member.node.returns is not None
                    line = f"    _cp{c}_{n}: {ast.unparse(member.node.returns)} = w.{name}"
                else:
                    line = f"    _cp{c}_{n}: {self.bound[(capability, name)]} = w.{name}"
                self.emit(line, self.tag(LineKind.MEMBER_SIGNATURE, check, name, member.is_property, expected=written))

    def write_construction(self, role: RolePolicy, construction: Construction) -> None:
        """The call sglang makes to build the class in ``role``: a keyword the
        constructor cannot take, and an abstract class, are errors on it."""
        factory, builds = construction.factory, construction.builds
        params = keyword_parameters(factory, construction.keywords(self.terms))
        if construction is Construction.SCHEDULER:
            # What a functools.partial that create_worker returns binds: the
            # scheduler's call (Scheduler.maybe_init_draft_worker) passes them too.
            # Bound keywords are typed Any: the partial's value is not read.
            given = {k for k, _ in params}
            for keyword in self.registered.bound_keywords:
                check_identifier(keyword, "keyword")
                if keyword not in given:
                    params.append((keyword, "Any"))
        signature = ", ".join(f"{k}: {annotation}" for k, annotation in params)
        passed = ", ".join(f"{k}={k}" for k, _ in params)
        check = Check(self.cls.dotted, role.protocol)
        # Without the factory line (a release whose keywords differ from the
        # factory protocol's), what the call builds is checked here.
        whole = role.members is None and construction.as_protocol_writes(self.terms)
        built = f"_b: {builds} = " if builds is not None and not whole else ""
        expected = factory_expected(factory, params, builds)
        # A release that passes no keyword (or a draft factory that passes
        # none) is called with none: `(*, )` is not Python.
        parameters = f"*, {signature}" if params else ""
        tag = self.tag(LineKind.CONSTRUCTOR, check, "__init__", expected=expected)
        self.emit(f"def _construct_{self.index}_{role.role.value}({parameters}) -> None:", tag)
        # Where the registered factory returns a function that builds the class, the scheduler calls that.
        builder = built_by(self.cls) if construction is Construction.SCHEDULER else None
        if builder is not None:
            check_identifier(builder, "function name")
            self.emit(f"    import {builder.rpartition('.')[0]} as _bld", tag)
        self.emit(f"    {built}{'_bld.' + builder.rpartition('.')[2] if builder else self.ref}({passed})", tag)

    def write_hooks(self, check: Check) -> None:
        """The hooks sglang calls only on a ``BaseSpecWorker`` (behind
        ``isinstance(w, BaseSpecWorker)``), where this class writes its own.

        Such a class always passes the guard, so its version is called exactly as
        the capability protocol writes it (``note_request_finished(rid=...,
        natural_stop=...)``); one it keeps is BaseSpecWorker's, which fits.
        """
        cls = self.cls
        if BASE_SPEC_WORKER not in cls.bases or cls.overrides is None:
            return
        for n, (name, capability) in enumerate(sorted(self.terms.nominal_hooks.items())):
            if name not in cls.overrides:
                continue
            check_identifier(name, "member name")
            member = self.definitions[capability][name]
            written = describe_function(capability, member.node)
            self.emit(
                f"    _h{n}: {self.bound[(capability, name)]} = w.{name}",
                self.tag(LineKind.MEMBER_SIGNATURE, check, name, expected=written),
            )
            self.emit(f"    _hg{n}: _Gradual = w.{name}", self.tag(LineKind.MEMBER_GRADUAL, check, name))

    def write_needs(self, check: Check) -> None:
        """The draft worker's side of the ``BaseSpecWorker`` defaults the class keeps.

        The draft worker is read as those defaults read it: ``self.draft_worker``
        where the class defines that property, else ``self._draft_worker`` (what
        ``BaseSpecWorker.draft_worker`` returns; its declared type, a union with
        ``TpModelWorker``, would make every need of an EAGLE draft fail). A silent
        canary means the draft worker is ``Any`` to the checker: a note, since the
        members the class itself defines were checked above.
        """
        cls = self.cls
        if BASE_SPEC_WORKER not in cls.bases or cls.overrides is None:
            return
        needs = kept_default_needs(self.terms, cls.overrides, cls.dotted, self.registered.unreached)
        if not needs:
            return
        draft_key = DRAFT_AS_WRITTEN if DRAFT_AS_WRITTEN in self.definitions else ProtocolName.DRAFT_WORKER
        draft_members = self.definitions[draft_key]
        source = "draft_worker" if "draft_worker" in cls.overrides else "_draft_worker"
        how = f"self.{source}" + ("" if source == "draft_worker" else " (set it in __init__; None when there is none)")
        built = built_drafts(cls, self.others) if source == "_draft_worker" else ()
        # The draft worker as the defaults read it (one block), or as each
        # class this worker injects is built (_draft_reads: one block each).
        blocks = [(f"import {d.module} as _dwm{k}", f"def _dwf{k}(_dw: _dwm{k}.{d.qualname}) -> None:") for k, d in enumerate(built)]
        for d in built:
            check_identifier(d.module, "module name")
            check_identifier(d.qualname, "class name")
        for first, second in blocks or [(f"_dw = w.{source}", "if _dw is not None:")]:
            self.emit(f"    {first}", self.tag(LineKind.NEEDS, check, "draft_worker", need=how))
            if built:
                self.emit(f"    {second}", self.tag(LineKind.NEEDS, check, "draft_worker", need=how))
            self.emit(("    " if built else "") + "    _dw_any: _Canary = _dw", self.tag(LineKind.NEEDS_ANY, check, "draft_worker", need=source))
            if not built:
                self.emit(f"    {second}", self.tag(LineKind.NEEDS, check, "draft_worker", need=how))
            for n, need in enumerate(needs):
                self.write_need(check, n, need, draft_key, draft_members)

    def write_need(
        self, check: Check, n: int, need: DraftNeed, draft_key: str, draft_members: Mapping[str, ProtocolMember]
    ) -> None:
        """The line of one need of a kept default (``kept_default_needs``), read on ``_dw`` in the block above it."""
        member, default, via = need.member, need.default, need.via
        check_identifier(member, "member name")
        through = f" (through {', '.join(via[1:])})" if len(via) > 1 else ""
        # Overriding any default on the way cuts the chain (the one nearest the
        # draft worker, e.g. _draft_model_runners, covers every kept default
        # that goes through it).
        instead = f" (or {', or '.join(via[1:])})" if len(via) > 1 else ""
        words = (
            f"inherits BaseSpecWorker.{default}, which uses draft_worker.{member}{through}; override "
            f"{default}{instead}, or give the draft worker {member}"
            + (f" (only with {flags_words((need.flags,))})" if need.flags else "")
        )
        definition = draft_members.get(member)
        if definition is None:
            line = f"        _dw.{member}"
        elif definition.is_property:
            assert definition.node.returns is not None
            line = f"        _n{n}: {ast.unparse(definition.node.returns)} = _dw.{member}"
        else:
            line = f"        _n{n}: {self.bound[(draft_key, member)]} = _dw.{member}"
        claim = flags_claim(need.flags) if need.flags else None
        self.emit(line, self.tag(LineKind.NEEDS, check, default, need=words, claim=claim))


#: What the harness imports itself, whatever the lines use.
_HEADER = (
    "# Generated by spec-protocols for one gate run. Checked by the static checkers; never executed.",
    "from __future__ import annotations",
    "from typing import Any",
    "from typing_extensions import Protocol",
)


def _head(parts: Sequence[str], absent: Collection[str] = frozenset()) -> tuple[list[str], list[str]]:
    """The harness's first lines: :data:`_HEADER`, then an import of each name
    of the protocols' module that ``parts`` (the rest of the module) use;
    one in ``absent`` (the release checked against lacks it) is ``Any``:
    importing it would be the checker's error on the harness, which no
    verdict can read. Returns the lines and the names written as ``Any``."""
    used = {n.id for n in ast.walk(ast.parse("\n".join(parts))) if isinstance(n, ast.Name)}
    used -= {"Any", "Protocol"}  # imported by the header
    lacking = sorted(used & set(absent))
    by_module: dict[str, list[str]] = {}
    for name, module in sorted(annotation_names().items()):
        # Private names (the factory's TypeVar) never appear in generated lines.
        if name in used and not name.startswith("_") and name not in absent:
            by_module.setdefault(module, []).append(name)
    head = list(_HEADER)
    head += [f"from {module} import {', '.join(sorted(names))}" for module, names in sorted(by_module.items())]
    head += [f"{name} = Any  # not in the release checked against" for name in lacking]
    head.append("")
    return head, lacking
