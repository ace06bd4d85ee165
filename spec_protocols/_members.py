"""A protocol's members, in the order the protocol defines them: one definition for everyone.

Runtime verification lists problems in this order, ``spec-protocols
explain`` prints members in it, the scaffolds write them in it, and the
gate's harness emits its lines in it. Base protocols come first; within a
class, methods and properties in the order of the class body, then
annotation-only attributes. A protocol is a class of this package's own, so
reading its namespace runs no foreign code.

:func:`protocol_definitions` adds, for one sglang release, each member's
definition as written in ``_protocols.py`` (the gate generates code from it,
and the contract's coverage check compares calls with it): a member under a
release branch counts for the releases whose pin makes the branch hold, as
mypy and pyright see it (see :mod:`spec_protocols._releases`).
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import FunctionType
from typing import cast

from typing_extensions import get_protocol_members

__all__ = [
    "ProtocolMember",
    "call_keywords",
    "call_parameters",
    "factory_builds",
    "protocol_definitions",
    "protocol_members",
    "protocols_ast",
]

# Protocols are fixed once defined: computed once per protocol.
_ORDER: dict[type, tuple[str, ...]] = {}


def protocol_members(protocol: type) -> tuple[str, ...]:
    """The members of ``protocol`` in definition order, base protocols first."""
    known = _ORDER.get(protocol)
    if known is not None:
        return known
    members = get_protocol_members(protocol)
    ordered: list[str] = []
    for klass in reversed(protocol.__mro__):
        namespace = vars(klass)
        annotations: object = namespace.get("__annotations__", {})
        names: list[str] = list(namespace)
        if isinstance(annotations, dict):
            names += [str(name) for name in cast("dict[object, object]", annotations)]
        for name in names:
            if name in members and name not in ordered:
                ordered.append(name)
    # Members that no namespace lists (none today) still come, in a fixed order.
    ordered.extend(sorted(members - set(ordered)))
    _ORDER[protocol] = tuple(ordered)
    return _ORDER[protocol]


def call_parameters(factory: type | str) -> tuple[inspect.Parameter, ...]:
    """The keyword parameters of the call a factory protocol writes
    (``SpecWorkerFactory``, ``DraftWorkerFactory``; a class or its name), in
    its order, annotated as ``_protocols.py`` writes them (the annotations
    stay source text: nothing is evaluated).

    The one definition of a construction call's keywords is the factory
    protocol's ``__call__``: the injection's ``DRAFT_WORKER_CTOR_KEYWORDS``,
    the draft skeleton and the gate, where no release tells otherwise, read
    them from it. A ``KeyError`` for a name that is not a factory protocol
    of this package's.
    """
    if isinstance(factory, str):
        from spec_protocols import _protocols

        found = getattr(_protocols, factory, None)
        if not isinstance(found, type):
            raise KeyError(factory)
        factory = found
    call = vars(factory).get("__call__")
    if call is None:
        raise KeyError(factory.__name__)
    parameters = inspect.signature(call).parameters.values()
    return tuple(p for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


def call_keywords(factory: type | str) -> tuple[str, ...]:
    """The keywords of the call a factory protocol writes, in its order (see :func:`call_parameters`)."""
    return tuple(p.name for p in call_parameters(factory))


def factory_builds(protocol: type) -> type | None:
    """What a factory protocol's call builds (``SpecWorkerFactory`` ->
    ``SpecWorker``; ``DraftWorkerFactory`` -> ``InjectableDraftWorker``, its
    type variable's bound), read from its ``__call__``'s return annotation
    in the namespace the ``__call__`` was defined in (``_protocols.py``'s);
    None for a protocol that is no
    factory of this package's (no ``__call__`` of its own returning one).

    The one definition of which call builds which worker: ``assert_conforms``
    checks a class against the factory whose call builds the protocol it is
    given, as the gate's roles do (``gate/_roles.py``).
    """
    call: object = vars(protocol).get("__call__")
    if not isinstance(call, FunctionType):
        return None
    written: object = call.__annotations__.get("return")
    found: object = call.__globals__.get(written) if isinstance(written, str) else written
    found = getattr(found, "__bound__", found)  # a TypeVar: what it is bound to
    return found if isinstance(found, type) else None


@dataclass(frozen=True, slots=True)
class ProtocolMember:
    """A protocol member as written: its name, whether it is a property, its definition."""

    name: str
    is_property: bool
    node: ast.FunctionDef

    @property
    def returns_object(self) -> bool:
        """Whether it is a method whose result is typed ``object``: one a
        coroutine function or a generator function would satisfy."""
        returns = self.node.returns
        return not self.is_property and isinstance(returns, ast.Name) and returns.id == "object"


_PROTOCOLS_FILE = Path(__file__).resolve().parent / "_protocols.py"


@cache
def protocols_ast() -> ast.Module:
    """``spec_protocols/_protocols.py`` as parsed (its signatures stay source text)."""
    return ast.parse(_PROTOCOLS_FILE.read_text(encoding="utf-8"), filename=str(_PROTOCOLS_FILE))


def _definitions(body: list[ast.stmt], tests: tuple[ast.expr, ...]) -> dict[str, tuple[ast.FunctionDef, tuple[ast.expr, ...]]]:
    """Each member defined in a protocol's body, with the release branches around it."""
    found: dict[str, tuple[ast.FunctionDef, tuple[ast.expr, ...]]] = {}
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            found.setdefault(stmt.name, (stmt, tests))
        elif isinstance(stmt, ast.If):
            for name, entry in _definitions(stmt.body, (*tests, stmt.test)).items():
                found.setdefault(name, entry)
            negated = ast.UnaryOp(op=ast.Not(), operand=stmt.test)
            for name, entry in _definitions(stmt.orelse, (*tests, negated)).items():
                found.setdefault(name, entry)
    return found


@cache
def protocol_definitions(protocol: str, release: str | None = None) -> tuple[ProtocolMember, ...]:
    """The members of the protocol named ``protocol`` that sglang ``release``
    calls (``None``: the newest release), in definition order, each with its
    definition. ``KeyError`` for a name that is not one of this package's
    protocols."""
    from spec_protocols import _protocols
    from spec_protocols._releases import branch_holds

    cls = getattr(_protocols, protocol, None)
    if not isinstance(cls, type):
        raise KeyError(protocol)
    classes = {klass.__name__ for klass in cls.__mro__}
    definitions: dict[str, tuple[ast.FunctionDef, tuple[ast.expr, ...]]] = {}
    for node in protocols_ast().body:
        if isinstance(node, ast.ClassDef) and node.name in classes:
            for name, entry in _definitions(node.body, ()).items():
                definitions.setdefault(name, entry)
    members: list[ProtocolMember] = []
    for name in protocol_members(cls):
        definition, tests = definitions[name]
        if not all(branch_holds(test, release) for test in tests):
            continue
        is_prop = any(isinstance(d, ast.Name) and d.id == "property" for d in definition.decorator_list)
        members.append(ProtocolMember(name, is_prop, definition))
    return tuple(members)
