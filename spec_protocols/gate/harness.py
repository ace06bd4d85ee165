"""The harness: one generated module per run that mypy and pyright both check.

For every discovered class ``C`` and every protocol ``P`` it is checked
against, the harness holds lines of three kinds, each tagged so that a
checker's diagnostic on that line maps back to ``(C, P, member)``:

``protocol``
    ``_p: P = w`` with ``w: C``: the whole structural check, as a user would
    write it.
``member``
    One line per protocol member, on the *class object*:
    ``_m: _P_member[C] = C.member`` for a method (``_P_member`` is the
    member's signature with an explicit ``self``), ``C.member`` plus
    ``_t: T = w.member`` for a property. Instance ``__getattr__`` does not
    apply to class-object attribute access, so a member that only
    ``__getattr__`` provides is reported missing; and each problem is
    attributed to its member even where a checker's message would elide it.
``canary``
    ``_k: _Canary = w`` and ``C.spec_protocols_canary_member``, where no
    class has that member. Both lines *must* error. If the class-object canary
    does not, the checker saw ``C`` as ``Any``/``Unknown`` and every other
    line for ``C`` is vacuous: the verdict is ``unverified``. If only the
    instance canary is silent, ``C`` has a ``__getattr__``: the member lines
    still decide.

Injected draft worker classes also get ``_f: DraftWorkerFactory[DraftWorker] = C``
and a constructor call with the exact keywords ``build_draft_tp_worker`` passes,
which is what reports an abstract class.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from spec_protocols.gate.model import Check, ClassRole, DiscoveredClass, GateError

__all__ = ["CANARY_MEMBER", "Harness", "LineKind", "LineTag", "ProtocolMember", "build_harness", "protocol_members"]

CANARY_MEMBER = "spec_protocols_canary_member"
_PROTOCOLS_FILE = Path(__file__).resolve().parent.parent / "_protocols.py"


class LineKind(enum.Enum):
    PROTOCOL = "protocol"
    MEMBER = "member"
    MEMBER_TYPE = "member_type"  # a property's type, read on an instance
    CANARY_INSTANCE = "canary_instance"
    CANARY_CLASS = "canary_class"
    FACTORY = "factory"
    CONSTRUCTOR = "constructor"
    IMPORT = "import"


@dataclass(frozen=True, slots=True)
class LineTag:
    kind: LineKind
    target: str  # dotted class path
    check: Check | None = None
    member: str | None = None
    is_property: bool = False


@dataclass(frozen=True, slots=True)
class Harness:
    module_name: str
    text: str
    tags: Mapping[int, LineTag]  # 1-based line -> tag
    checks: tuple[Check, ...]


@dataclass(frozen=True, slots=True)
class ProtocolMember:
    name: str
    is_property: bool
    node: ast.FunctionDef


@cache
def _protocols_source() -> ast.Module:
    return ast.parse(_PROTOCOLS_FILE.read_text(encoding="utf-8"), filename=str(_PROTOCOLS_FILE))


@cache
def protocol_members(protocol: str) -> tuple[ProtocolMember, ...]:
    """The members of a protocol in ``_protocols.py``, in definition order."""
    for node in _protocols_source().body:
        if isinstance(node, ast.ClassDef) and node.name == protocol:
            members: list[ProtocolMember] = []
            for stmt in node.body:
                if isinstance(stmt, ast.FunctionDef):
                    is_prop = any(isinstance(d, ast.Name) and d.id == "property" for d in stmt.decorator_list)
                    members.append(ProtocolMember(stmt.name, is_prop, stmt))
            return tuple(members)
    raise GateError(f"unknown protocol {protocol!r}")


def _annotation_names() -> dict[str, str]:
    """Each name the protocol annotations use -> the module to import it from."""
    tree = _protocols_source()
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


def _unbound_signature(cls_name: str, member: ProtocolMember) -> str:
    """A callback protocol for ``C.member``: the method with ``self`` made explicit."""
    fn = copy.deepcopy(member.node)
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    rest = positional[1:]  # drop the protocol's own self
    explicit_self = ast.arg(arg="_self", annotation=ast.Name(id="_S_contra"))
    n_posonly = max(len(args.posonlyargs) - 1, 0)
    args.posonlyargs = [ast.arg(arg="_this"), explicit_self, *rest[:n_posonly]]
    args.args = rest[n_posonly:]
    fn.name = "__call__"
    fn.decorator_list = []
    fn.body = [ast.Expr(value=ast.Constant(value=Ellipsis))]
    cls = ast.ClassDef(
        name=cls_name,
        bases=[ast.Subscript(value=ast.Name(id="Protocol"), slice=ast.Name(id="_S_contra"))],
        keywords=[],
        body=[fn],
        decorator_list=[],
    )
    if "type_params" in ast.ClassDef._fields:  # Python 3.12+ unparses it
        setattr(cls, "type_params", [])
    return ast.unparse(ast.fix_missing_locations(cls))


def _check_identifier(dotted: str, what: str) -> None:
    for part in dotted.split("."):
        if not part.isidentifier() or keyword.iskeyword(part):
            raise GateError(f"{dotted!r} is not a valid {what}; the gate only checks importable names")


def checks_for(cls: DiscoveredClass) -> tuple[Check, ...]:
    protocols = sorted({role.protocol for role in cls.roles})
    return tuple(Check(cls.dotted, p) for p in protocols)


def build_harness(classes: Sequence[DiscoveredClass], module_name: str = "spec_protocols_harness") -> Harness:
    """Generate the harness module for ``classes``."""
    lines: list[str] = []
    tags: dict[int, LineTag] = {}
    checks: list[Check] = []

    def emit(text: str, tag: LineTag | None = None) -> None:
        lines.append(text)
        if tag is not None:
            tags[len(lines)] = tag

    origin = _annotation_names()
    protocols_used = sorted({role.protocol for c in classes for role in c.roles})
    used = {"DraftWorker", "DraftWorkerFactory", *protocols_used}
    for protocol in protocols_used:
        for member in protocol_members(protocol):
            used.update(n.id for n in ast.walk(member.node.args) if isinstance(n, ast.Name))
            if member.node.returns is not None:
                used.update(n.id for n in ast.walk(member.node.returns) if isinstance(n, ast.Name))
    # Private names (the factory's TypeVar) never appear in generated lines.
    wanted = sorted((n, m) for n, m in origin.items() if n in used and not n.startswith("_"))
    emit("# Generated by spec-protocols for one gate run. Checked by mypy and pyright; never executed.")
    emit("from __future__ import annotations")
    emit("from typing import TypeVar")
    emit("from typing_extensions import Protocol")
    by_module: dict[str, list[str]] = {}
    for name, module in wanted:
        by_module.setdefault(module, []).append(name)
    for module, names in sorted(by_module.items()):
        emit(f"from {module} import {', '.join(sorted(names))}")
    emit("")
    emit('_S_contra = TypeVar("_S_contra", contravariant=True)')
    emit("")
    emit("class _Canary(Protocol):")
    emit(f"    def {CANARY_MEMBER}(self) -> None: ...")
    emit("")

    unbound: dict[tuple[str, str], str] = {}
    for protocol in protocols_used:
        for member in protocol_members(protocol):
            if member.is_property or protocol == "DraftWorkerFactory":
                continue
            name = f"_{protocol}__{member.name}"
            unbound[(protocol, member.name)] = name
            for text in _unbound_signature(name, member).splitlines():
                emit(text)
            emit("")

    for index, cls in enumerate(sorted(classes, key=lambda c: c.dotted)):
        _check_identifier(cls.module, "module name")
        _check_identifier(cls.qualname, "class name")
        alias = f"_m{index}"
        ref = f"{alias}.{cls.qualname}"
        emit(f"import {cls.module} as {alias}", LineTag(LineKind.IMPORT, cls.dotted))
        emit(f"def _check_{index}(w: {ref}) -> None:")
        emit("    _k: _Canary = w", LineTag(LineKind.CANARY_INSTANCE, cls.dotted))
        emit(f"    {ref}.{CANARY_MEMBER}", LineTag(LineKind.CANARY_CLASS, cls.dotted))
        for check in checks_for(cls):
            checks.append(check)
            if check.protocol == "DraftWorkerFactory":
                emit(f"    _f: DraftWorkerFactory[DraftWorker] = {ref}", LineTag(LineKind.FACTORY, cls.dotted, check))
                continue
            emit(f"    _p_{check.protocol}: {check.protocol} = w", LineTag(LineKind.PROTOCOL, cls.dotted, check))
            for n, member in enumerate(protocol_members(check.protocol)):
                if member.is_property:
                    emit(f"    {ref}.{member.name}", LineTag(LineKind.MEMBER, cls.dotted, check, member.name, True))
                    assert member.node.returns is not None
                    annotation = ast.unparse(member.node.returns)
                    emit(
                        f"    _t{n}_{check.protocol}: {annotation} = w.{member.name}",
                        LineTag(LineKind.MEMBER_TYPE, cls.dotted, check, member.name, True),
                    )
                else:
                    protocol_cls = unbound[(check.protocol, member.name)]
                    emit(
                        f"    _u{n}_{check.protocol}: {protocol_cls}[{ref}] = {ref}.{member.name}",
                        LineTag(LineKind.MEMBER, cls.dotted, check, member.name),
                    )
        if ClassRole.INJECTED in cls.roles:
            # The constructor call build_draft_tp_worker makes, with values of
            # the factory's own parameter types: reports abstract classes and
            # keywords the constructor cannot take.
            (call,) = protocol_members("DraftWorkerFactory")
            params = call.node.args.kwonlyargs
            signature = ", ".join(f"{p.arg}: {ast.unparse(p.annotation)}" for p in params if p.annotation)
            keywords = ", ".join(f"{p.arg}={p.arg}" for p in params)
            emit(f"def _construct_{index}(*, {signature}) -> None:")
            check = Check(cls.dotted, "DraftWorkerFactory")
            emit(f"    {ref}({keywords})", LineTag(LineKind.CONSTRUCTOR, cls.dotted, check, "__init__"))
        emit("")
    return Harness(module_name, "\n".join(lines) + "\n", tags, tuple(sorted(set(checks))))
