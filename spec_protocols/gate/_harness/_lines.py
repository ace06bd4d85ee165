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
    (:attr:`ReleaseTerms.call_shapes`, :func:`_as_called`).
``constructor``
    How sglang builds the class: a spec worker as the scheduler does
    (``SpecWorkerFactory``'s keywords), an injected class as
    ``build_draft_tp_worker`` does (``DraftWorkerFactory``'s). Reports a
    keyword the constructor cannot take and an abstract class. A draft worker
    that its own spec worker builds gets a bare ``C()`` of which only
    "abstract" errors count. A class that may be abstract (an intentional
    base) gets a note instead of a failure for being abstract.

Injected draft worker classes also get ``_f: DraftWorkerFactory[InjectableDraftWorker] = C``.
The module imports only the names its lines use, and writes a callback
protocol only for a signature a line checks: a name that another member's
signature uses may not exist in the release checked.
Modules that hold injection sites are imported at the end, one line per site
(their shadows are checked; see :mod:`spec_protocols.gate._harness._sites`).

The harness is built only from validated identifiers (module and class names
that are Python identifiers) and from the protocol signatures in this
package's own source, so no target name can inject code into it. It is never
executed.
"""

from __future__ import annotations

import ast
import copy
import enum
import keyword
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from typing_extensions import Protocol

from spec_protocols._members import ProtocolMember, protocol_definitions, protocols_ast
from spec_protocols.gate._contract._terms import CallShape, ReleaseTerms, kept_default_needs, release_terms
from spec_protocols.gate._model import Check, ClassRole, DiscoveredClass, GateError
from spec_protocols.gate._signatures import describe_function

__all__ = [
    "CANARY_MEMBER",
    "SITE_FUNCTION",
    "Harness",
    "LineKind",
    "LineTag",
    "ProtocolMember",
    "build_harness",
    "factory_keywords",
    "keyword_parameters",
    "protocol_members",
    "site_call",
    "site_helper_module",
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


def protocol_members(protocol: str, release: str | None = None) -> tuple[ProtocolMember, ...]:
    """The members of a protocol for ``release``, with their source definitions
    (see :func:`spec_protocols._members.protocol_definitions`); a GateError for
    an unknown protocol."""
    try:
        return protocol_definitions(protocol, release)
    except KeyError:
        raise GateError(f"unknown protocol {protocol!r}") from None


def _annotation_names() -> dict[str, str]:
    """Each name the protocol annotations use -> the module to import it from."""
    tree = protocols_ast()
    origin: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                origin[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.ClassDef):
            origin[node.name] = "spec_protocols._protocols"
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    origin[target.id] = "spec_protocols._protocols"
    return origin


def _bound_signature(cls_name: str, member: ProtocolMember) -> str:
    """A callback protocol for ``w.member``: the method as an instance's caller
    sees it, ``self`` removed.

    Read on an instance, a method, a ``staticmethod`` and a ``classmethod``
    all present the shape their callers meet, which is what the protocol
    describes; read on the class object, the last two would be judged by a
    shape nobody calls.
    """
    fn = copy.deepcopy(member.node)
    args = fn.args
    if args.posonlyargs:
        args.posonlyargs = args.posonlyargs[1:]
    else:
        args.args = args.args[1:]
    args.posonlyargs = [ast.arg(arg="_this"), *args.posonlyargs]
    fn.name = "__call__"
    fn.decorator_list = []
    fn.body = [ast.Expr(value=ast.Constant(value=Ellipsis))]
    cls = ast.ClassDef(name=cls_name, bases=[ast.Name(id="Protocol")], keywords=[], body=[fn], decorator_list=[])
    if "type_params" in ast.ClassDef._fields:  # Python 3.12+ unparses it
        setattr(cls, "type_params", [])
    return ast.unparse(ast.fix_missing_locations(cls))


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


def _check_identifier(dotted: str, what: str) -> None:
    for part in dotted.split("."):
        if not part.isidentifier() or keyword.iskeyword(part):
            raise GateError(f"{dotted!r} is not a valid {what}; the gate only checks importable names")


def _constructor_keywords(protocol: str) -> list[ast.arg]:
    (call,) = protocol_members(protocol)
    return call.node.args.kwonlyargs


def keyword_parameters(factory: str, keywords: Sequence[str]) -> list[tuple[str, str]]:
    """``(keyword, annotation)`` for each keyword a release passes to a
    constructor: the factory protocol's annotation for the keywords it knows,
    ``Any`` for one it does not (``ps``, which only releases before 0.5.21
    pass): the line then checks that the constructor takes the keyword."""
    known = {p.arg: ast.unparse(p.annotation) for p in _constructor_keywords(factory) if p.annotation is not None}
    for keyword_name in keywords:
        _check_identifier(keyword_name, "keyword")
    return [(k, known.get(k, "Any")) for k in keywords]


def factory_keywords(factory: str) -> tuple[str, ...]:
    """The keywords a factory protocol's call takes, in its order."""
    return tuple(p.arg for p in _constructor_keywords(factory))


#: The prefix of the generated site helpers: ``<prefix>_<n>`` and ``<prefix>_<n>_canary``.
SITE_FUNCTION = "spec_protocols_site"


def site_call(number: int, expression: str, helper_alias: str, keywords: Sequence[str]) -> str:
    """What an injection site's expression becomes in its shadow module.

    The expression is *called* exactly as ``build_draft_tp_worker`` calls
    ``draft_worker_cls`` (every keyword, with a value of its declared type):
    both checkers then judge the call itself, where a protocol comparison
    could be vacuous (mypy compares a ``functools.partial`` through typeshed's
    gradual ``__call__``, but checks a call of one precisely). What the call
    builds must be a ``DraftWorker``; the canary around it must error, or what
    it builds is ``Any``.
    """
    passed = ", ".join(f"{k}={helper_alias}.{k}" for k in keywords)
    built = f"({expression})({passed})"
    return f"{helper_alias}.{SITE_FUNCTION}_{number}_canary({helper_alias}.{SITE_FUNCTION}_{number}({built}))"


def site_helper_module(numbers: Sequence[int], keywords: Sequence[str]) -> str:
    """The module the shadows import: typed stand-ins for the call's arguments
    (the ``keywords`` the release passes), and one pair of functions per site
    (see :func:`site_call`)."""
    params = keyword_parameters("DraftWorkerFactory", keywords)
    origin = _annotation_names()
    used = sorted({n.id for _, a in params for n in ast.walk(ast.parse(a, mode="eval")) if isinstance(n, ast.Name)})
    lines = [
        "# Generated by spec-protocols: stand-ins for injection sites (see spec_protocols/gate/_harness/_sites.py).",
        "from typing import Any, TypeVar",
        "from typing_extensions import Protocol",
        "from spec_protocols._protocols import InjectableDraftWorker",
    ]
    by_module: dict[str, list[str]] = {}
    for name in used:
        if name in origin:
            by_module.setdefault(origin[name], []).append(name)
    lines += [f"from {module} import {', '.join(names)}" for module, names in sorted(by_module.items())]
    lines += [
        "",
        '_W = TypeVar("_W", bound=InjectableDraftWorker)',
        "",
        "class _Canary(Protocol):",
        f"    def {CANARY_MEMBER}(self) -> None: ...",
        "",
    ]
    lines += [f"{name}: {annotation}" for name, annotation in params]
    lines.append("")
    for n in numbers:
        lines.append(f"def {SITE_FUNCTION}_{n}(built: _W, /) -> _W: ...")
        lines.append(f"def {SITE_FUNCTION}_{n}_canary(built: _Canary, /) -> Any: ...")
    return "\n".join(lines) + "\n"


#: The class whose defaults a worker may keep, and so inherit their needs.
BASE_SPEC_WORKER = "sglang.srt.speculative.base_spec_worker.BaseSpecWorker"


def build_harness(
    classes: Sequence[DiscoveredClass],
    module_name: str = "spec_protocols_harness",
    *,
    site_modules: Mapping[str, Sequence[str]] | None = None,
    terms: ReleaseTerms | None = None,
) -> Harness:
    """Generate the harness module for ``classes``, checked on ``terms`` (the
    release's members, keywords and inherited needs; default: the newest
    supported release's protocols, whole).

    ``site_modules`` maps each module holding injection sites to the site
    targets in it; the harness imports those modules so that both checkers
    check them (their shadows, see :mod:`spec_protocols.gate._harness._sites`).
    """
    terms = terms if terms is not None else release_terms(None)
    pin = terms.pin
    # The module is written in three parts: the imports (of the names the
    # rest uses), the callback protocols of the signatures the lines check
    # (only those: a name another member's signature uses may not exist in
    # the release checked, as HiCacheDraftPlan in 0.5.5), and the lines.
    lines: list[str] = []
    tags: dict[int, LineTag] = {}
    checks: list[Check] = []

    def emit(text: str, tag: LineTag | None = None) -> None:
        lines.append(text)
        if tag is not None:
            tags[len(lines)] = tag

    protocols_used = sorted({role.protocol for c in classes for role in c.roles})
    # DraftWorker's signatures also check what a kept default needs of a draft worker.
    # ... and the capabilities that write the hooks a BaseSpecWorker subclass
    # is called with (terms.nominal_hooks).
    signatures = sorted({*protocols_used, "DraftWorker", *terms.nominal_hooks.values()} - {"DraftWorkerFactory"})
    definitions: dict[str, dict[str, ProtocolMember]] = {}
    for protocol in signatures:
        shapes = terms.call_shapes.get(protocol, {})
        definitions[protocol] = {
            m.name: _as_called(m, shapes[m.name]) if m.name in shapes and not m.is_property else m
            for m in protocol_members(protocol, pin if protocol == "SpecWorker" else None)
        }
    bound = _CallbackNames(definitions)

    draft_factory = terms.draft_factory_keywords
    factory_line = draft_factory is None or set(draft_factory) == set(factory_keywords("DraftWorkerFactory"))
    constructions = {
        ClassRole.SPEC_WORKER: ("SpecWorkerFactory", terms.constructor_keywords),
        ClassRole.INJECTED: ("DraftWorkerFactory", draft_factory if draft_factory is not None else factory_keywords("DraftWorkerFactory")),
    }

    for index, cls in enumerate(sorted(classes, key=lambda c: c.dotted)):
        _check_identifier(cls.module, "module name")
        _check_identifier(cls.qualname, "class name")
        alias = f"_m{index}"
        ref = f"{alias}.{cls.qualname}"
        target = cls.dotted

        def tag(
            kind: LineKind,
            check: Check | None = None,
            member: str | None = None,
            prop: bool = False,
            need: str | None = None,
            expected: str | None = None,
        ) -> LineTag:
            return LineTag(kind, target, check, member, prop, need, expected)

        emit(f"import {cls.module} as {alias}", tag(LineKind.IMPORT))
        emit(f"def _check_{index}(w: {ref}) -> None:", tag(LineKind.IMPORT))
        # An attribute no class has, read on an instance: silent only when the
        # class has a __getattr__ (a protocol assignment would not tell: pyright
        # matches protocols without __getattr__, but reads attributes with it).
        emit(f"    w.{CANARY_MEMBER}", tag(LineKind.CANARY_INSTANCE))
        emit(f"    {ref}.{CANARY_MEMBER}", tag(LineKind.CANARY_CLASS))
        for check in cls.checks:
            checks.append(check)
            p = check.protocol
            if p == "DraftWorkerFactory":
                if factory_line:
                    expected = _factory_expected("DraftWorkerFactory", None, "InjectableDraftWorker")
                    emit(
                        f"    _f: DraftWorkerFactory[InjectableDraftWorker] = {ref}",
                        tag(LineKind.FACTORY, check, "__init__", expected=expected),
                    )
                continue
            if p in terms.whole:
                emit(f"    _p_{p}: {p} = w", tag(LineKind.PROTOCOL, check))
            for n, name in enumerate(terms.checked(p)):
                member = definitions[p][name]
                prop = member.is_property
                # The member as the protocol writes it, for the reader.
                written = describe_function(p, member.node)
                emit(f"    {ref}.{name}", tag(LineKind.MEMBER, check, name, prop, expected=written))
                emit(f"    _a{n}_{p}: _Canary = {ref}.{name}", tag(LineKind.MEMBER_ANY, check, name, prop))
                if prop:
                    assert member.node.returns is not None
                    annotation = ast.unparse(member.node.returns)
                    emit(f"    _t{n}_{p}: {annotation} = w.{name}", tag(LineKind.MEMBER_TYPE, check, name, prop, expected=written))
                else:
                    emit(
                        f"    _u{n}_{p}: {bound[(p, name)]} = w.{name}",
                        tag(LineKind.MEMBER_SIGNATURE, check, name, expected=written),
                    )
                    emit(f"    _g{n}_{p}: _Gradual = w.{name}", tag(LineKind.MEMBER_GRADUAL, check, name))
            if p == "SpecWorker":
                for name in terms.presence:
                    _check_identifier(name, "member name")
                    emit(f"    {ref}.{name}", tag(LineKind.MEMBER, check, name))
                    emit(f"    w.{name}", tag(LineKind.MEMBER_PRESENT, check, name))
                _emit_hooks(emit, tag, check, cls, terms, definitions, bound)
                _emit_needs(emit, tag, check, cls, terms, definitions["DraftWorker"], bound)
        # How sglang builds it. A spec worker: the scheduler's constructor
        # call; an injected class: build_draft_tp_worker's. Both report an
        # abstract class, and a keyword the constructor cannot take. A draft
        # worker that its own spec worker builds (with arguments of its own)
        # gets a bare call, of which only "abstract" errors count.
        for role, (factory, keywords) in constructions.items():
            if role not in cls.roles:
                continue
            params = keyword_parameters(factory, keywords)
            signature = ", ".join(f"{k}: {annotation}" for k, annotation in params)
            passed = ", ".join(f"{k}={k}" for k, _ in params)
            check = Check(target, role.protocol)
            # Without the factory line (a release whose keywords differ from
            # DraftWorkerFactory's), what the call builds is checked here.
            built = "_b: InjectableDraftWorker = " if role is ClassRole.INJECTED and not factory_line else ""
            expected = _factory_expected(factory, params, "InjectableDraftWorker" if role is ClassRole.INJECTED else None)
            # A release that passes no keyword (or a draft factory that passes
            # none) is called with none: `(*, )` is not Python.
            parameters = f"*, {signature}" if params else ""
            emit(
                f"def _construct_{index}_{role.value}({parameters}) -> None:",
                tag(LineKind.CONSTRUCTOR, check, "__init__", expected=expected),
            )
            emit(f"    {built}{ref}({passed})", tag(LineKind.CONSTRUCTOR, check, "__init__", expected=expected))
        if ClassRole.DRAFT_WORKER in cls.roles and ClassRole.INJECTED not in cls.roles:
            check = Check(target, "DraftWorker")
            emit(f"def _abstract_{index}() -> None:", tag(LineKind.ABSTRACT, check, "__init__"))
            emit(f"    {ref}()", tag(LineKind.ABSTRACT, check, "__init__"))
        emit("")

    for index, (module, targets) in enumerate(sorted((site_modules or {}).items())):
        _check_identifier(module, "module name")
        for site_target in targets:
            # One line per site, so that an import error reaches each of them.
            emit(f"import {module} as _s{index}", LineTag(LineKind.SITE, site_target))

    callbacks: list[str] = []
    for (protocol, name), callback in bound.requested.items():
        callbacks.extend(_bound_signature(callback, definitions[protocol][name]).splitlines())
        callbacks.append("")
    head = _head([_CANARY_TYPES, *callbacks, *lines])
    head += _CANARY_TYPES.splitlines()
    head.append("")
    head += callbacks
    text = "\n".join([*head, *lines]) + "\n"
    shifted = {n + len(head): t for n, t in tags.items()}
    may_be_abstract = frozenset(c.dotted for c in classes if c.may_be_abstract)
    by_target = {c.dotted: c for c in classes}
    return Harness(module_name, text, shifted, tuple(sorted(set(checks))), may_be_abstract, by_target)


#: What the harness imports itself, whatever the lines use.
_HEADER = (
    "# Generated by spec-protocols for one gate run. Checked by mypy and pyright; never executed.",
    "from __future__ import annotations",
    "from typing import Any",
    "from typing_extensions import Protocol",
)


def _head(parts: Sequence[str]) -> list[str]:
    """The harness's first lines: :data:`_HEADER`, then an import of each name
    of the protocols' module that ``parts`` (the rest of the module) use."""
    used = {n.id for n in ast.walk(ast.parse("\n".join(parts))) if isinstance(n, ast.Name)}
    used -= {"Any", "Protocol"}  # imported by the header
    by_module: dict[str, list[str]] = {}
    for name, module in sorted(_annotation_names().items()):
        # Private names (the factory's TypeVar) never appear in generated lines.
        if name in used and not name.startswith("_"):
            by_module.setdefault(module, []).append(name)
    head = list(_HEADER)
    head += [f"from {module} import {', '.join(sorted(names))}" for module, names in sorted(by_module.items())]
    head.append("")
    return head


class _CallbackNames(dict[tuple[str, str], str]):
    """``(protocol, member)`` -> the name of its callback protocol in the
    harness (``_SpecWorker__forward_batch_generation``); each one asked for is
    written, once, in the order first asked (:attr:`requested`)."""

    def __init__(self, definitions: Mapping[str, Mapping[str, ProtocolMember]]) -> None:
        super().__init__()
        self._definitions = definitions
        self.requested: dict[tuple[str, str], str] = {}

    def __missing__(self, key: tuple[str, str]) -> str:
        protocol, member = key
        if member not in self._definitions.get(protocol, {}):
            raise KeyError(key)
        name = self.requested[key] = self[key] = f"_{protocol}__{member}"
        return name


def _as_called(member: ProtocolMember, shape: CallShape) -> ProtocolMember:
    """``member``'s signature as the release checked calls it (``shape``; see
    :attr:`ReleaseTerms.call_shapes`): the positionals it passes, positional
    only (those not every call passes take a default), and the keywords it
    passes (required where every call passes them), each annotated as the
    protocol annotates it, ``Any`` where the protocol has no such parameter.
    The return type is the protocol's.

    0.5.5 calls ``forward_batch_generation(batch)``: a worker written for it
    need not take 0.5.23's ``on_publish=``; 0.5.12 calls
    ``on_verify_complete_cpu(counts)``, without ``batch_size=``.
    """
    fn = copy.deepcopy(member.node)
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    this, rest = positional[0], positional[1:]
    known = {a.arg: a.annotation for a in (*rest, *args.kwonlyargs)}
    fewest, most = shape.positional
    passed = [rest[i] if i < len(rest) else ast.arg(arg=f"_arg{i}", annotation=ast.Name(id="Any")) for i in range(most)]
    # Positional only, as the release passes them (a worker may name them
    # as it likes); ``self`` alone stays as the protocol writes it.
    args.posonlyargs, args.args = ([this, *passed], []) if passed else ([], [this])
    args.defaults = [ast.Constant(value=Ellipsis) for _ in range(most - fewest)]
    names = (*shape.keywords, *shape.optional_keywords)
    for name in names:
        _check_identifier(name, "keyword")
    args.kwonlyargs = [ast.arg(arg=k, annotation=copy.deepcopy(known.get(k)) or ast.Name(id="Any")) for k in names]
    args.kw_defaults = [None if k in shape.keywords else ast.Constant(value=Ellipsis) for k in names]
    args.vararg = None
    args.kwarg = None
    return ProtocolMember(member.name, member.is_property, ast.fix_missing_locations(fn))


def _factory_expected(factory: str, params: Sequence[tuple[str, str]] | None, builds: str | None) -> str:
    """The constructor call a factory protocol describes, for the reader:
    ``DraftWorkerFactory.__call__(self, *, server_args: ServerArgs, ...) ->
    InjectableDraftWorker``, with the keywords the release passes
    (``params``; the protocol's own when None) and, for a protocol generic in
    what it builds, the type the harness asks it to build (its TypeVar is a
    private name no reader knows)."""
    (call,) = protocol_members(factory)
    node = copy.deepcopy(call.node)
    if params is not None:
        node.args.kwonlyargs = [ast.arg(arg=k, annotation=ast.parse(a, mode="eval").body) for k, a in params]
        node.args.kw_defaults = [None] * len(params)
    if builds is not None:
        node.returns = ast.Name(id=builds)
    return describe_function(factory, node)


class _Tagger(Protocol):
    def __call__(
        self,
        kind: LineKind,
        check: Check | None = None,
        member: str | None = None,
        prop: bool = False,
        need: str | None = None,
        expected: str | None = None,
    ) -> LineTag: ...


def _emit_hooks(
    emit: Callable[[str, LineTag | None], None],
    tag: _Tagger,
    check: Check,
    cls: DiscoveredClass,
    terms: ReleaseTerms,
    definitions: Mapping[str, Mapping[str, ProtocolMember]],
    bound: Mapping[tuple[str, str], str],
) -> None:
    """The hooks sglang calls only on a ``BaseSpecWorker`` (behind
    ``isinstance(w, BaseSpecWorker)``), where this class writes its own.

    Such a class always passes the guard, so its version is called exactly as
    the capability protocol writes it (``note_request_finished(rid=...,
    natural_stop=...)``); one it keeps is BaseSpecWorker's, which fits.
    """
    if BASE_SPEC_WORKER not in cls.bases or cls.overrides is None:
        return
    for n, (name, capability) in enumerate(sorted(terms.nominal_hooks.items())):
        if name not in cls.overrides:
            continue
        _check_identifier(name, "member name")
        member = definitions[capability][name]
        written = describe_function(capability, member.node)
        emit(f"    _h{n}: {bound[(capability, name)]} = w.{name}", tag(LineKind.MEMBER_SIGNATURE, check, name, expected=written))
        emit(f"    _hg{n}: _Gradual = w.{name}", tag(LineKind.MEMBER_GRADUAL, check, name))


def _emit_needs(
    emit: Callable[[str, LineTag | None], None],
    tag: _Tagger,
    check: Check,
    cls: DiscoveredClass,
    terms: ReleaseTerms,
    draft_members: Mapping[str, ProtocolMember],
    bound: Mapping[tuple[str, str], str],
) -> None:
    """The draft worker's side of the ``BaseSpecWorker`` defaults the class keeps.

    The draft worker is read as those defaults read it: ``self.draft_worker``
    where the class defines that property, else ``self._draft_worker`` (what
    ``BaseSpecWorker.draft_worker`` returns; its declared type, a union with
    ``TpModelWorker``, would make every need of an EAGLE draft fail). A silent
    canary means the draft worker is ``Any`` to the checker: a note, since the
    members the class itself defines were checked above.
    """
    if BASE_SPEC_WORKER not in cls.bases or cls.overrides is None:
        return
    needs = kept_default_needs(terms, cls.overrides, cls.dotted)
    if not needs:
        return
    source = "draft_worker" if "draft_worker" in cls.overrides else "_draft_worker"
    how = f"self.{source}" + ("" if source == "draft_worker" else " (set it in __init__; None when there is none)")
    emit(f"    _dw = w.{source}", tag(LineKind.NEEDS, check, "draft_worker", need=how))
    emit("    _dw_any: _Canary = _dw", tag(LineKind.NEEDS_ANY, check, "draft_worker", need=source))
    emit("    if _dw is not None:", tag(LineKind.NEEDS, check, "draft_worker", need=how))
    for n, need in enumerate(needs):
        _check_identifier(need.member, "member name")
        through = f" (through {', '.join(need.via[1:])})" if len(need.via) > 1 else ""
        # Overriding any default on the way cuts the chain (the one nearest the
        # draft worker, e.g. _draft_model_runners, covers every kept default
        # that goes through it).
        instead = f" (or {', or '.join(need.via[1:])})" if len(need.via) > 1 else ""
        words = (
            f"inherits BaseSpecWorker.{need.default}, which uses draft_worker.{need.member}{through}; override "
            f"{need.default}{instead}, or give the draft worker {need.member}"
        )
        definition = draft_members.get(need.member)
        if definition is None:
            line = f"        _dw.{need.member}"
        elif definition.is_property:
            assert definition.node.returns is not None
            line = f"        _n{n}: {ast.unparse(definition.node.returns)} = _dw.{need.member}"
        else:
            line = f"        _n{n}: {bound[('DraftWorker', need.member)]} = _dw.{need.member}"
        emit(line, tag(LineKind.NEEDS, check, need.default, need=words))
