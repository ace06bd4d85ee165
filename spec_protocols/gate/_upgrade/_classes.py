"""What a class of TARGET sets on its instances, read from its own source (never imported).

sglang finds a hook on the *instance* (``getattr(self.model_worker,
"draft_model_runner", None)``, managers/scheduler_components/weight_updater.py),
so an attribute a worker's ``__init__`` stores (``self.draft_model_runner =
...``) answers it as a method would. Discovery records what a class body
defines (:attr:`DiscoveredClass.overrides`); this adds the names its own
methods store on ``self``, so that a step about a hook concerns the classes
that answer it.
"""

from __future__ import annotations

import ast

from spec_protocols.gate._model import DiscoveredClass
from spec_protocols.gate._source import parse_file

__all__ = ["instance_attributes"]


def _class_node(tree: ast.Module, qualname: str) -> ast.ClassDef | None:
    """The class ``qualname`` names in ``tree`` (nested classes through their outer ones)."""
    body: list[ast.stmt] = tree.body
    found: ast.ClassDef | None = None
    for part in qualname.split("."):
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if found is None:
            return None
        body = found.body
    return found


def _stored_on_self(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The attributes ``function`` stores on its first parameter (``self.x = ...``, ``self.x: T = ...``)."""
    parameters = [*function.args.posonlyargs, *function.args.args]
    if not parameters:
        return set()
    receiver = parameters[0].arg
    return {
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == receiver
    }


def instance_attributes(cls: DiscoveredClass) -> frozenset[str]:
    """The names the class's own methods store on ``self``; empty when its file cannot be read."""
    try:
        parsed = parse_file(cls.file)
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    node = _class_node(parsed.tree, cls.qualname)
    if node is None:
        return frozenset()
    names: set[str] = set()
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            names |= _stored_on_self(statement)
    return frozenset(names)
