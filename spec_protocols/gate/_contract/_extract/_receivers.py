"""Receivers: which expressions are the scheduler's spec worker (or a worker reached from it).

What counts as the spec worker (a *receiver*):

- ``<scheduler>.draft_worker`` and ``<scheduler>.model_worker``, where a
  scheduler is ``self`` in any class of those folders that is not itself a
  worker (the Scheduler, its mixins, the components whose dataclass fields
  ``draft_worker`` / ``model_worker`` are filled from the scheduler),
  ``<anything>.scheduler``, a name ``scheduler``, or a local bound to one of
  these (``sched = self.scheduler``). In speculative mode
  ``self.model_worker = self.draft_worker``, so both are the spec worker.
- a local bound to a receiver, also through ``or`` / a conditional expression
  (``worker = self.draft_worker or self.tp_worker``) or ``:=``;
- a parameter or attribute the worker reaches by a call (see
  :mod:`~spec_protocols.gate._contract._extract._follow`);
- the spec worker's own ``draft_worker`` / ``target_worker`` (``getattr(w,
  "draft_worker", None)``, ``w.draft_worker.x``), recorded with receiver
  ``spec_worker.draft_worker`` / ``spec_worker.target_worker``: the inner
  draft worker's members are not the spec worker's.

Which roots a walk starts from (``self``'s fields, a followed parameter) is
its :class:`~spec_protocols.gate._contract._extract._scope.Roots`.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from spec_protocols.gate._contract._extract._scope import Scope
from spec_protocols.gate._contract._extract._syntax import parameters, positional_parameters, string

__all__ = ["NESTED_WORKERS", "SPEC", "WORKER_FIELDS", "is_scheduler", "names_of", "receiver"]

#: The scheduler's fields that hold the spec worker.
WORKER_FIELDS = ("draft_worker", "model_worker")
#: Members of a worker that are workers themselves (tracked one level deep).
NESTED_WORKERS = ("draft_worker", "target_worker")
SPEC = "spec_worker"


def receiver(expr: ast.expr, scope: Scope, seen: frozenset[str] = frozenset()) -> str | None:
    """The receiver ``expr`` is (``spec_worker``...), or None."""
    if isinstance(expr, ast.Name):
        root = scope.param_root(expr.id)
        if root is not None:
            return root
        if expr.id in seen:
            return None
        for value in scope.binding(expr.id) or ():
            found = _bound_receiver(value, scope, seen | {expr.id})
            if found is not None:
                return found
        return None
    if isinstance(expr, ast.Attribute):
        return _attribute_receiver(expr, scope, seen)
    if isinstance(expr, ast.NamedExpr):
        return receiver(expr.value, scope, seen)
    if isinstance(expr, ast.Call):
        return _nested_by_getattr(expr, scope, seen)
    return None


def _attribute_receiver(expr: ast.Attribute, scope: Scope, seen: frozenset[str]) -> str | None:
    """``self.<root>``, ``<scheduler>.draft_worker``, ``<spec worker>.draft_worker``."""
    base = expr.value
    if isinstance(base, ast.Name) and base.id == "self" and expr.attr in scope.roots.self_attrs:
        return scope.roots.self_attrs[expr.attr]
    if expr.attr in WORKER_FIELDS and is_scheduler(base, scope, seen):
        return SPEC
    if scope.roots.nested and expr.attr in NESTED_WORKERS and receiver(base, scope, seen) == SPEC:
        return f"{SPEC}.{expr.attr}"
    return None


def _nested_by_getattr(expr: ast.Call, scope: Scope, seen: frozenset[str]) -> str | None:
    """``getattr(<spec worker>, "draft_worker", None)``."""
    if (
        scope.roots.nested
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "getattr"
        and len(expr.args) >= 2
        and string(expr.args[1]) in NESTED_WORKERS
        and receiver(expr.args[0], scope, seen) == SPEC
    ):
        return f"{SPEC}.{string(expr.args[1])}"
    return None


def _bound_receiver(value: ast.expr, scope: Scope, seen: frozenset[str]) -> str | None:
    """The receiver a local is bound to, also through ``a or b`` / ``a if c else b``."""
    if isinstance(value, ast.BoolOp):
        for operand in value.values:
            found = _bound_receiver(operand, scope, seen)
            if found is not None:
                return found
        return None
    if isinstance(value, ast.IfExp):
        return _bound_receiver(value.body, scope, seen) or _bound_receiver(value.orelse, scope, seen)
    return receiver(value, scope, seen)


def is_scheduler(expr: ast.expr, scope: Scope, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``expr`` is the scheduler (``self`` where it is one, ``x.scheduler``, a local bound to one)."""
    if isinstance(expr, ast.Attribute):
        return expr.attr == "scheduler"
    if isinstance(expr, ast.Name):
        if expr.id == "self":
            return scope.roots.scheduler_self
        if expr.id == "scheduler":
            return True
        if expr.id in seen:
            return False
        bound = scope.binding(expr.id) or ()
        return any(is_scheduler(v, scope, seen | {expr.id}) for v in bound)
    return False


def names_of(expr: ast.expr, scope: Scope) -> list[str]:
    """The member names a getattr/hasattr name argument can be: a literal,
    or a parameter of the enclosing function that its callers in the same
    class (or module) pass as a literal."""
    literal = string(expr)
    if literal is not None:
        return [literal]
    if not isinstance(expr, ast.Name) or scope.func is None or expr.id not in parameters(scope.func):
        return []
    func = scope.func
    positional = positional_parameters(func)
    index = positional.index(expr.id) if expr.id in positional else None
    is_method = scope.cls is not None and bool(positional) and positional[0] in ("self", "cls")
    if index is not None and is_method:
        index -= 1
    found: list[str] = []
    container: Sequence[ast.stmt] = scope.cls.body if scope.cls is not None else scope.module.tree.body
    for node in ast.walk(ast.Module(body=list(container), type_ignores=[])):
        if isinstance(node, ast.Call) and _calls(node.func, func.name, is_method):
            value = string(_argument(node, index, expr.id))
            if value is not None and value not in found:
                found.append(value)
    return found


def _calls(callee: ast.expr, name: str, is_method: bool) -> bool:
    """Whether a call's callee is the function ``name`` (``self.name`` / ``cls.name`` for a method)."""
    if is_method:
        return (
            isinstance(callee, ast.Attribute)
            and callee.attr == name
            and isinstance(callee.value, ast.Name)
            and callee.value.id in ("self", "cls")
        )
    return isinstance(callee, ast.Name) and callee.id == name


def _argument(call: ast.Call, position: int | None, keyword: str) -> ast.expr | None:
    """The argument a call passes a parameter: by keyword, else at ``position``."""
    argument: ast.expr | None = None
    if position is not None and 0 <= position < len(call.args):
        argument = call.args[position]
    for passed in call.keywords:
        if passed.arg == keyword:
            argument = passed.value
    return argument
