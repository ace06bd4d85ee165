"""The protocols' own source, turned into harness text.

Everything the harness writes about a protocol comes from its definition in
``spec_protocols/_protocols.py`` (read with ``ast``, never evaluated, so that
no sglang name is imported): the callback protocol of a member's signature,
that signature as a release outside the supported range calls it, the
keywords of a construction call with their annotations, and the names those
annotations need imported. Only validated identifiers are spliced in
(:func:`check_identifier`), so no target name can inject code.
"""

from __future__ import annotations

import ast
import copy
import keyword
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

import spec_protocols._sglang_types as _sglang_types_module
from spec_protocols._members import ProtocolMember, protocol_definitions, protocols_ast
from spec_protocols.gate._contract import CallShape, HookTerm, ReleaseTerms
from spec_protocols.gate._harness._keyword_types import capability_annotations, without_none
from spec_protocols.gate._model import GateError
from spec_protocols.gate._signatures import describe_function

__all__ = [
    "CallbackNames",
    "annotation_names",
    "sglang_origins",
    "as_called",
    "as_discarded",
    "bound_signature",
    "check_identifier",
    "factory_expected",
    "hook_protocol_name",
    "hook_protocols",
    "hook_reads",
    "hooks_held",
    "keyword_parameters",
    "protocol_members",
]


def check_identifier(dotted: str, what: str) -> None:
    """A GateError unless every part of ``dotted`` is a Python identifier (and no keyword)."""
    for part in dotted.split("."):
        if not part.isidentifier() or keyword.iskeyword(part):
            raise GateError(f"{dotted!r} is not a valid {what}; the gate only checks importable names")


def protocol_members(protocol: str, release: str | None = None) -> tuple[ProtocolMember, ...]:
    """The members of a protocol for ``release``, with their source definitions
    (see :func:`spec_protocols._members.protocol_definitions`); a GateError for
    an unknown protocol."""
    try:
        return protocol_definitions(protocol, release)
    except KeyError:
        raise GateError(f"unknown protocol {str(protocol)!r}") from None


@cache
def annotation_names() -> Mapping[str, str]:
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


@cache
def sglang_origins() -> Mapping[str, str]:
    """Each sglang name the protocols' vocabulary (``spec_protocols/_sglang_types.py``)
    imports for the type checkers -> the sglang module it is imported from.

    Read from that module's source (never imported): its ``TYPE_CHECKING``
    branch is the one place that says where each name lives, in the release
    the stubs describe. An older release may not define the name there
    (``LoadGroup`` in 0.5.5); the harness asks :func:`spec_protocols.gate._harness.release_lacks`.
    """
    file = Path(_sglang_types_module.__file__ or "")
    origin: dict[str, str] = {}
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").partition(".")[0] == "sglang":
            for alias in node.names:
                origin[alias.asname or alias.name] = node.module or ""
    return origin


def bound_signature(cls_name: str, member: ProtocolMember) -> str:
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


class CallbackNames(dict[tuple[str, str], str]):
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

    def callbacks(self) -> list[str]:
        """The callback protocols asked for, as harness lines, each followed by a blank line."""
        lines: list[str] = []
        for (protocol, name), callback in self.requested.items():
            lines.extend(bound_signature(callback, self._definitions[protocol][name]).splitlines())
            lines.append("")
        return lines


def as_called(member: ProtocolMember, shape: CallShape) -> ProtocolMember:
    """``member``'s signature as the release checked calls it (``shape``; see
    :attr:`ReleaseTerms.call_shapes`): the positionals it passes, positional
    only (those not every call passes take a default), and the keywords it
    passes (required where every call passes them), each annotated as the
    protocol annotates it (or, failing that, the capability protocol that
    declares it on the member: ``pp_proxy_tensors``), ``Any`` where none has
    such a parameter, less ``None`` where every call passes a value certain
    not to be None (:attr:`CallShape.never_none`: ``on_publish=partial(...)``;
    see :mod:`~spec_protocols.gate._harness._keyword_types`). The return
    type is the protocol's.

    0.5.5 calls ``forward_batch_generation(batch)``: a worker written for it
    need not take 0.5.23's ``on_publish=``; 0.5.12 calls
    ``on_verify_complete_cpu(counts)``, without ``batch_size=``.
    """
    fn = copy.deepcopy(member.node)
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    this, rest = positional[0], positional[1:]
    known = {**capability_annotations(member.name), **{a.arg: a.annotation for a in (*rest, *args.kwonlyargs)}}
    fewest, most = shape.positional
    passed = [rest[i] if i < len(rest) else ast.arg(arg=f"_arg{i}", annotation=ast.Name(id="Any")) for i in range(most)]
    # Positional only, as the release passes them (a worker may name them
    # as it likes); ``self`` alone stays as the protocol writes it.
    args.posonlyargs, args.args = ([this, *passed], []) if passed else ([], [this])
    args.defaults = [ast.Constant(value=Ellipsis) for _ in range(most - fewest)]
    names = (*shape.keywords, *shape.optional_keywords)
    for name in names:
        check_identifier(name, "keyword")
    # A keyword the call site never passes None (on_publish=partial(...)) asks only for the rest.
    typed = {k: without_none(a) if k in shape.never_none and a is not None else a for k, a in known.items()}
    args.kwonlyargs = [ast.arg(arg=k, annotation=copy.deepcopy(typed.get(k)) or ast.Name(id="Any")) for k in names]
    args.kw_defaults = [None if k in shape.keywords else ast.Constant(value=Ellipsis) for k in names]
    args.vararg = None
    args.kwarg = None
    return ProtocolMember(member.name, member.is_property, ast.fix_missing_locations(fn))


def as_discarded(member: ProtocolMember) -> ProtocolMember:
    """``member`` with ``object`` for its result: the release makes every call
    of it as a statement (:attr:`ReleaseTerms.discarded`), so whatever it
    returns is dropped. That a coroutine or a generator is an ``object`` too
    is what the harness's own line for such a member refuses
    (``LineKind.MEMBER_DEFERRED``)."""
    fn = copy.deepcopy(member.node)
    fn.returns = ast.Name(id="object")
    return ProtocolMember(member.name, member.is_property, ast.fix_missing_locations(fn))


def _call(factory: str) -> ProtocolMember:
    (call,) = protocol_members(factory)
    return call


def keyword_parameters(factory: str, keywords: Sequence[str]) -> list[tuple[str, str]]:
    """``(keyword, annotation)`` for each keyword a release passes to a
    constructor: the factory protocol's annotation for the keywords it knows,
    ``Any`` for one it does not (``ps``, which only releases before 0.5.21
    pass): the line then checks that the constructor takes the keyword."""
    node = _call(factory).node
    known = {p.arg: ast.unparse(p.annotation) for p in node.args.kwonlyargs if p.annotation is not None}
    for keyword_name in keywords:
        check_identifier(keyword_name, "keyword")
    return [(k, known.get(k, "Any")) for k in keywords]


def factory_expected(factory: str, params: Sequence[tuple[str, str]] | None, builds: str | None) -> str:
    """The constructor call a factory protocol describes, for the reader:
    ``DraftWorkerFactory.__call__(self, *, server_args: ServerArgs, ...) ->
    InjectableDraftWorker``, with the keywords the release passes
    (``params``; the protocol's own when None) and, for a protocol generic in
    what it builds, the type the harness asks it to build (its TypeVar is a
    private name no reader knows)."""
    node = copy.deepcopy(_call(factory).node)
    if params is not None:
        node.args.kwonlyargs = [ast.arg(arg=k, annotation=ast.parse(a, mode="eval").body) for k, a in params]
        node.args.kw_defaults = [None] * len(params)
    if builds is not None:
        node.returns = ast.Name(id=builds)
    return describe_function(factory, node)


# -- Capability protocols generated from the contract's hooks ----------------------------

#: What iterating a hook's value yields: its elements are not typed (any object will do).
_HOOK_ITERATOR = """\
class _HookIterator(Protocol):
    def __next__(self) -> object: ..."""


def hook_protocol_name(protocol: str, member: str) -> str:
    """The harness's name of the capability protocol for one hook (``_Hook_SpecWorker__spec_v2_attn_backends``)."""
    check_identifier(member, "member name")
    return f"_Hook_{protocol}__{member}"


def _hook_call(shape: CallShape) -> str:
    """``def __call__(self, _a0: Any, /, *, k: Any) -> object: ...``: the calls' shape, as
    :func:`as_called` writes a member's (positionals positional only, those not every
    call passes with a default; a keyword every call passes required, one some pass optional)."""
    fewest, most = shape.positional
    params = ["self", *(f"_a{i}: Any" + (" = ..." if i >= fewest else "") for i in range(most))]
    if most:
        params.append("/")
    names = (*shape.keywords, *shape.optional_keywords)
    for name in names:
        check_identifier(name, "keyword")
    if names:
        params.append("*")
        params += [f"{k}: Any" + ("" if k in shape.keywords else " = ...") for k in names]
    return f"    def __call__({', '.join(params)}) -> object: ..."


def hook_protocol(term: HookTerm) -> str:
    """The capability protocol a class that defines ``term``'s member is held to:
    ``__call__`` in the calls' shape where sglang calls the value, ``__iter__``
    where it iterates it (a method is not iterable: ``spec_v2_attn_backends``
    written as a method fails). Elements and results are ``object``: sglang's
    use of them is not typed here."""
    body: list[str] = []
    if term.call is not None:
        body.append(_hook_call(term.call))
    if term.iterated:
        body.append("    def __iter__(self) -> _HookIterator: ...")
    return "\n".join([f"class {hook_protocol_name(term.protocol, term.member)}(Protocol):", *body])


def hook_protocols(terms: ReleaseTerms) -> list[str]:
    """Every constraining hook's capability protocol (:attr:`ReleaseTerms.hooks`),
    as harness lines, each followed by a blank line; none when no hook constrains."""
    held = [t for by_member in terms.hooks.values() for t in by_member.values() if t.constrains]
    if not held:
        return []
    lines = [*_HOOK_ITERATOR.splitlines(), ""]
    for term in sorted(held, key=lambda t: (t.protocol, t.member)):
        lines += [*hook_protocol(term).splitlines(), ""]
    return lines


def hook_reads(term: HookTerm, local: str, instance: str = "w") -> list[str]:
    """The harness lines (in a function body, four spaces in) that read
    ``term``'s member on ``instance`` as its capability protocol.

    Where sglang's lookup defaults to ``None`` its code copes with ``None``
    (``if callable(prepare_release):``): the member is checked only where it
    is not ``None`` (a class that sets it to ``None`` is never called), by
    narrowing, so that a wrong method is reported against the protocol itself
    and not against a union."""
    name = hook_protocol_name(term.protocol, term.member)
    if not term.none_ok:
        return [f"    {local}: {name} = {instance}.{term.member}"]
    return [
        f"    {local}_v = {instance}.{term.member}",
        f"    if {local}_v is not None:",
        f"        {local}: {name} = {local}_v",
    ]


def hooks_held(terms: ReleaseTerms, protocol: str, defined: frozenset[str] | None) -> list[HookTerm]:
    """The hooks a class checked against ``protocol`` is held to: those whose
    member it defines (``defined``: the names its own body and its bases outside
    sglang define; None: unknown, none held) and that constrain the value,
    leaving out a member the protocol itself checks (its signature says more)."""
    if defined is None:
        return []
    checked = set(terms.checked(protocol))
    return [
        term
        for member, term in sorted(terms.hooks.get(protocol, {}).items())
        if term.constrains and member in defined and member not in checked
    ]
