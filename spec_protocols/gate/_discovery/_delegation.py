"""What an instance of a class has besides what its class bodies define: attributes its ``__init__`` sets, and a delegating ``__getattr__``.

sglang reads members on the instance it built. A static checker sees a
class's body and the attributes its methods declare, but not what a
``__getattr__`` returns: sglang 0.5.11's V1 ``DFlashWorker`` says::

    def __getattr__(self, name):
        # Delegate anything not implemented yet to the target worker.
        return getattr(self.target_worker, name)

with ``self.target_worker = target_worker`` in ``__init__`` and the
parameter annotated ``TpModelWorker``. Its instance has every member a
``TpModelWorker`` instance has. This module reads that from the source:

- :func:`instance_attributes`: the names ``self.<name> = ...`` binds in an
  ``__init__`` along the class's method resolution order, or in a method
  one calls on ``self``;
- :func:`delegation`: for a ``__getattr__`` (the nearest in that order)
  whose body is only guards that raise and one ``return getattr(self.<attr>,
  <its name parameter>)`` without a default, the attribute, the class it
  holds (an annotated ``__init__`` parameter assigned to it, an annotated
  assignment, or a property's return annotation, one plain class name), and
  what an instance of that class has, the same way.

A ``getattr`` with a default, or a body that does anything else, is not a
delegation: what it gives cannot be read, and the gate keeps saying so.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from spec_protocols.gate._discovery._member_definitions import linearize, member_definitions
from spec_protocols.gate._discovery._source_index import ModuleSource, SourceIndex
from spec_protocols.gate._model import Delegation

__all__ = ["delegation", "instance_attributes"]

#: A delegate's own bases are followed through sglang's roots too: what the
#: instance has is all of its class's members.
_FOLLOW_EVERY_BASE: frozenset[str] = frozenset()


def _self_attribute(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None


def _methods(index: SourceIndex, qualified: str, roots: frozenset[str], name: str) -> Iterator[tuple[ModuleSource, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Each ``def name`` along ``qualified``'s method resolution order, nearest first."""
    for owner in linearize(index, qualified, roots):
        located = index.class_def(owner)
        if located is None:
            continue
        module, info = located
        for stmt in info.node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                yield module, stmt


def _assignments(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, ast.stmt]]:
    """``(attribute, statement)`` for each ``self.<attribute> = ...`` in ``func``."""
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for part in target.elts if isinstance(target, ast.Tuple) else [target]:
                    attr = _self_attribute(part)
                    if attr is not None:
                        yield attr, node
        elif isinstance(node, ast.AnnAssign):
            attr = _self_attribute(node.target)
            if attr is not None:
                yield attr, node


#: How many ``self.<method>()`` calls deep an ``__init__`` is followed.
_MAX_CALLS = 3


def instance_attributes(index: SourceIndex, qualified: str, roots: frozenset[str]) -> frozenset[str]:
    """The names ``self.<name> = ...`` binds in an ``__init__`` of the class
    or a base, or in a method of theirs that one calls as ``self.<method>()``
    (0.5.11's ``TpModelWorker.__init__`` sets ``model_config`` in
    ``self._init_model_config()``)."""
    found: set[str] = set()
    seen: set[str] = set()
    pending = [("__init__", 0)]
    while pending:
        name, depth = pending.pop()
        if name in seen or depth > _MAX_CALLS:
            continue
        seen.add(name)
        for _, method in _methods(index, qualified, roots, name):
            found.update(attr for attr, _ in _assignments(method))
            pending += [(called, depth + 1) for called in _self_calls(method)]
            if name != "__init__":
                break  # a method other than __init__: the nearest definition runs
    return frozenset(found)


def _self_calls(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[str]:
    """The names of the ``self.<method>(...)`` calls in ``func``."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            called = _self_attribute(node.func)
            if called is not None:
                yield called


def _delegated_attribute(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """``attr`` when ``func`` is ``__getattr__(self, name)`` doing only guards
    that raise and ``return getattr(self.attr, name)``."""
    params = func.args.posonlyargs + func.args.args
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(params) != 2 or not body or not all(_raises_only(g) for g in body[:-1]):
        return None
    last = body[-1]
    if not isinstance(last, ast.Return) or not _is_getattr_of(last.value, params[1].arg):
        return None
    assert isinstance(last.value, ast.Call)
    return _self_attribute(last.value.args[0])


def _raises_only(statement: ast.stmt) -> bool:
    """``if <test>: raise ...``, a guard that lets every other name through."""
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and len(statement.body) == 1
        and isinstance(statement.body[0], ast.Raise)
    )


def _is_getattr_of(value: ast.expr | None, name: str) -> bool:
    """``getattr(<held>, name)``, with no default."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "getattr"
        and len(value.args) == 2
        and not value.keywords
        and isinstance(value.args[1], ast.Name)
        and value.args[1].id == name
    )


def _annotation_of(
    index: SourceIndex, qualified: str, roots: frozenset[str], attr: str
) -> tuple[ModuleSource, ast.expr] | None:
    """The annotation that says what ``self.<attr>`` holds, with the module it is written in."""
    for module, init in _methods(index, qualified, roots, "__init__"):
        annotated = {a.arg: a.annotation for a in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs) if a.annotation}
        for assigned, stmt in _assignments(init):
            if assigned != attr:
                continue
            if isinstance(stmt, ast.AnnAssign):
                return module, stmt.annotation
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id in annotated:
                return module, annotated[stmt.value.id]
    for module, prop in _methods(index, qualified, roots, attr):
        if prop.returns is not None:
            return module, prop.returns
    return None


def delegation(index: SourceIndex, qualified: str, roots: frozenset[str]) -> Delegation | None:
    """The class's delegating ``__getattr__``, as read (None: it has none, or one the gate cannot read)."""
    found = next(_methods(index, qualified, roots, "__getattr__"), None)
    if found is None:
        return None
    attr = _delegated_attribute(found[1])
    if attr is None:
        return None
    annotation = _annotation_of(index, qualified, roots, attr)
    if annotation is None:
        return None
    module, expr = annotation
    written = expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else ast.unparse(expr)
    if not written.replace(".", "").replace("_", "").isalnum():
        return None  # a union, an Optional, a generic: not one class
    held = index.resolve(module, written)
    if held is None or index.class_def(held) is None:
        return None
    members = {m.name for m in member_definitions(index, held, _FOLLOW_EVERY_BASE)}
    return Delegation(attr, held, frozenset(members | instance_attributes(index, held, _FOLLOW_EVERY_BASE)))
