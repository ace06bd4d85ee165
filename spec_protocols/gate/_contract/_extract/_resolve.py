"""What a call names in the release: a method of the class, or a function or class found through the imports."""

from __future__ import annotations

import ast

from spec_protocols.gate._contract._extract._scope import Scope
from spec_protocols.gate._contract._extract._syntax import Definition
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree
from spec_protocols.gate._source import from_imports

__all__ = ["Resolved", "resolve"]

#: Where the definition is, the definition, and the class it is a method of.
Resolved = tuple[Module, Definition, ast.ClassDef | None]
#: How many imports deep a name is followed.
_MAX_HOPS = 2


def resolve(tree: ReleaseTree, func: ast.expr, scope: Scope) -> Resolved | None:
    """The function or class of the release that ``func`` names, if any:
    ``self.<method>`` in the class walked, a name the function or its module
    imports, or one its module defines."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        if scope.cls is not None:
            for node in scope.cls.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func.attr:
                    return scope.module, node, scope.cls
        return None
    if not isinstance(func, ast.Name):
        return None
    imported = scope.imported(func.id)
    if imported is not None:
        return _resolve_in(tree, imported[0], imported[1], 0)
    return _lookup(tree, scope.module, func.id, 0)


def _lookup(tree: ReleaseTree, module: Module, name: str, hops: int) -> Resolved | None:
    """``name`` as ``module``'s import binds it (:attr:`Module.run`): defined there, or imported."""
    for node in module.run:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return module, node, None
    for local, source, imported in from_imports(module.run, module.package):
        if local == name:
            return _resolve_in(tree, source, imported, hops + 1)
    return None


def _resolve_in(tree: ReleaseTree, dotted: str, name: str, hops: int) -> Resolved | None:
    if hops > _MAX_HOPS:
        return None
    module = tree.module(dotted)
    return _lookup(tree, module, name, hops) if module is not None else None
