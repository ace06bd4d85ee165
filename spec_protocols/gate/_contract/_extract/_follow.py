"""Following the worker into calls: a function or class of sglang that is passed a receiver.

A function or class of sglang that is passed the worker
(``_get_draft_model_runner(self.draft_worker)``,
``ExternalCorpusManager(self.draft_worker, ...)`` which keeps it as
``self._worker``) is read with that parameter / attribute as a receiver, and
inherits the conditions of the call site (an ``algorithm`` or ``isinstance``
fact says where it was passed). Each (function, parameter, receiver) is
followed once, at most four calls deep.
"""

from __future__ import annotations

import ast
from collections.abc import Container, Sequence
from dataclasses import replace
from typing import Protocol

from spec_protocols.gate._contract._extract._facts import Facts
from spec_protocols.gate._contract._extract._receivers import receiver
from spec_protocols.gate._contract._extract._resolve import resolve
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import FunctionNode, functions, own_nodes, parameters, positional_parameters, self_attribute, text
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree

__all__ = ["Follower", "Walks"]

#: Calls whose first argument is read, not passed on.
_BUILTINS = frozenset(
    {"getattr", "hasattr", "setattr", "isinstance", "callable", "id", "type", "print", "repr", "str", "bool", "len"}
)
#: How many calls deep a receiver is followed.
_MAX_DEPTH = 4
#: Where a receiver is passed: a position, or a keyword.
Passed = list[tuple[int | str, str]]


class Walks(Protocol):
    """What a follower walks with: the walker that called it."""

    def walk_function(self, scope: Scope, facts: Facts = ()) -> None: ...

    def walk_class(self, module: Module, cls: ast.ClassDef, roots: Roots, facts: Facts = ()) -> None: ...


class Follower:
    """Follows receivers into the callees they are passed to, each once."""

    def __init__(self, tree: ReleaseTree, walker: Walks) -> None:
        self.tree = tree
        self._walker = walker
        self._followed: set[tuple[int, str, str]] = set()
        self._depth = 0

    def follow(self, call: ast.Call, scope: Scope, facts: Facts) -> None:
        """A call that passes a receiver on: read the callee with the parameter
        (or the attribute it is stored in) as a receiver."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in _BUILTINS:
            return
        passed = _passed(call, scope)
        if not passed or self._depth >= _MAX_DEPTH:
            return
        resolved = resolve(self.tree, func, scope)
        if resolved is None:
            return
        module, node, owner = resolved
        where = f"{scope.module.rel} {scope.qualname}"
        inherited = tuple(
            replace(f, text=f"{f.text} (where {where} passes it to {node.name})") if f.kind in ("algorithm", "isinstance") else f
            for f in facts
        )
        self._depth += 1
        try:
            if isinstance(node, ast.ClassDef):
                self._follow_class(module, node, passed, inherited)
            else:
                self._follow_function(module, node, owner, passed, inherited)
        finally:
            self._depth -= 1

    def _follow_function(
        self, module: Module, func: FunctionNode, owner: ast.ClassDef | None, passed: Passed, facts: Facts
    ) -> None:
        positional = positional_parameters(func)
        if owner is not None and positional:  # a bound method: self is not passed
            positional = positional[1:]
        for name, held in bind_passed(positional, parameters(func), passed).items():
            key = (id(func), name, held)
            if key in self._followed:
                continue
            self._followed.add(key)
            qualname = f"{owner.name}.{func.name}" if owner is not None else func.name
            roots = Roots(self_attrs={}, scheduler_self=False, params={name: held})
            self._walker.walk_function(Scope(module, owner, func, qualname, roots), facts)

    def _follow_class(self, module: Module, cls: ast.ClassDef, passed: Passed, facts: Facts) -> None:
        init = next((f for f in functions(cls.body) if f.name == "__init__"), None)
        if init is not None:
            attrs = _kept_by_init(init, passed)
        elif any("dataclass" in text(d) for d in cls.decorator_list):
            fields = [n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
            attrs = bind_passed(fields, fields, passed)
        else:
            attrs = {}
        fresh = {a: r for a, r in attrs.items() if (id(cls), a, r) not in self._followed}
        if not fresh:
            return
        for attr, held in fresh.items():
            self._followed.add((id(cls), attr, held))
        self._walker.walk_class(module, cls, Roots(self_attrs=fresh, scheduler_self=False), facts)


def _passed(call: ast.Call, scope: Scope) -> Passed:
    """The receivers a call passes, by position or keyword."""
    passed: Passed = []
    for index, argument in enumerate(call.args):
        held = receiver(argument, scope)
        if held is not None:
            passed.append((index, held))
    for keyword in call.keywords:
        if keyword.arg is not None:
            held = receiver(keyword.value, scope)
            if held is not None:
                passed.append((keyword.arg, held))
    return passed


def bind_passed(positional: Sequence[str], names: Container[str], passed: Passed) -> dict[str, str]:
    """Parameter (or field) -> the receiver passed to it: by position among
    ``positional``, or by a keyword among ``names``."""
    bound: dict[str, str] = {}
    for where, held in passed:
        if isinstance(where, int):
            if where < len(positional):
                bound[positional[where]] = held
        elif where in names:
            bound[where] = held
    return bound


def _kept_by_init(init: FunctionNode, passed: Passed) -> dict[str, str]:
    """The attributes ``__init__`` keeps a passed receiver in (``self._worker = worker``)."""
    params = bind_passed(positional_parameters(init)[1:], parameters(init), passed)
    attrs: dict[str, str] = {}
    for node in own_nodes(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params:
            for target in node.targets:
                attr = self_attribute(target)
                if attr is not None:
                    attrs[attr] = params[node.value.id]
    return attrs
