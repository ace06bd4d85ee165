"""Scopes and roots: one function being walked, and what is a worker in that walk."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from spec_protocols.gate._contract._extract._syntax import FunctionNode, own_nodes, parameters
from spec_protocols.gate._contract._extract._tree import Module
from spec_protocols.gate._source import from_imports

__all__ = ["Roots", "Scope"]


@dataclass(frozen=True, slots=True)
class Roots:
    """What is a worker in one walk."""

    #: ``self.<attr>`` -> receiver.
    self_attrs: Mapping[str, str] = field(default_factory=dict[str, str])
    #: ``self`` is a scheduler (``self.draft_worker`` is the spec worker).
    scheduler_self: bool = False
    #: Names bound to a receiver from outside (a helper's parameter).
    params: Mapping[str, str] = field(default_factory=dict[str, str])
    #: ``<spec worker>.draft_worker`` etc. are receivers too.
    nested: bool = True


@dataclass(eq=False, slots=True)
class Scope:
    """One function being walked: where it is and what its names are bound to."""

    module: Module
    cls: ast.ClassDef | None
    func: FunctionNode | None
    qualname: str
    roots: Roots
    #: The enclosing function's scope, for a nested function.
    parent: Scope | None = None
    _bindings: dict[str, list[ast.expr]] | None = field(default=None, init=False, repr=False)
    _imports: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]], init=False, repr=False)

    def _read(self) -> dict[str, list[ast.expr]]:
        """What the function's own names are bound to (read once, when first asked)."""
        if self._bindings is None:
            self._bindings = {}
            if self.func is not None:
                nodes = list(own_nodes(self.func))
                for node in nodes:
                    for name, value in _bound(node):
                        self._bindings.setdefault(name, []).append(value)
                for local, source, name in from_imports(nodes, self.module.package):
                    self._imports[local] = (source, name)
        return self._bindings

    @property
    def bindings(self) -> dict[str, list[ast.expr]]:
        return self._read()

    @property
    def imports(self) -> dict[str, tuple[str, str]]:
        """The function's own ``from`` imports: local name -> (module, name)."""
        self._read()
        return self._imports

    def binding(self, name: str) -> list[ast.expr] | None:
        """What ``name`` is bound to here or in an enclosing function (None: a parameter, or unbound)."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.bindings:
                return scope.bindings[name]
            if scope.func is not None and name in parameters(scope.func):
                return None
            scope = scope.parent
        return None

    def bound_to_call_of(self, name: str, method: str) -> bool:
        """Whether ``name`` is bound to ``<something>.<method>(...)``."""
        return any(
            isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == method
            for v in self.binding(name) or ()
        )

    def param_root(self, name: str) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.roots.params:
                return scope.roots.params[name]
            scope = scope.parent
        return None

    def imported(self, name: str) -> tuple[str, str] | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.imports:
                return scope.imports[name]
            scope = scope.parent
        return None

    def child(self, func: FunctionNode) -> Scope:
        return Scope(self.module, self.cls, func, f"{self.qualname}.{func.name}", self.roots, self)

    @property
    def owner(self) -> str:
        """The unit a validation covers: the class, else the module-level function."""
        if self.cls is not None:
            return f"{self.module.rel}::{self.cls.name}"
        return f"{self.module.rel}::{self.qualname.split('.')[0]}"


def _bound(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """The names a node binds and their values: ``x = v``, ``x: T = v``, ``(x := v)``."""
    if isinstance(node, ast.Assign):
        return [(target.id, node.value) for target in node.targets if isinstance(target, ast.Name)]
    if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
        return [(node.target.id, node.value)]
    if isinstance(node, ast.NamedExpr):
        return [(node.target.id, node.value)]
    return []
