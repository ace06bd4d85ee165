"""The value a test has before anything runs, as both static checkers give it.

mypy and pyright evaluate ``sys.version_info`` and ``sys.platform``
comparisons on the interpreter they check for, and skip a branch they find
false; a reader that must see what they see (discovery, which notes a class
defined only on another Python) evaluates the same tests here.
``TYPE_CHECKING`` is deliberately unknown: the checkers see its body, the
import does not, and the runtime checker reports a class defined only there
as missing at runtime on its own.
"""

from __future__ import annotations

import ast
import operator
import sys
from collections.abc import Callable
from typing import Any

from spec_protocols.gate._source._names import dotted_name

__all__ = ["static_truth", "truth_of"]

_Comparable = tuple[int, ...] | int | str
_OPERATORS: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def truth_of(
    expr: ast.expr, leaf: Callable[[ast.expr, int], bool | None], depth: int = 0, max_depth: int | None = None
) -> bool | None:
    """The value of ``expr`` taken apart through ``not`` / ``and`` / ``or``,
    three-valued (None: unknown): ``a and b`` is false when one operand is,
    true when all are, else unknown (``or`` the other way round). Every other
    expression is ``leaf(expr, depth)``. Past ``max_depth`` levels, unknown."""
    if max_depth is not None and depth > max_depth:
        return None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = truth_of(expr.operand, leaf, depth + 1, max_depth)
        return None if inner is None else not inner
    if isinstance(expr, ast.BoolOp):
        values = [truth_of(v, leaf, depth + 1, max_depth) for v in expr.values]
        if isinstance(expr.op, ast.And):
            return False if False in values else (None if None in values else True)
        return True if True in values else (None if None in values else False)
    return leaf(expr, depth)


def static_truth(test: ast.expr) -> bool | None:
    """The value both static checkers give ``test`` on this interpreter, or None.

    Understands what mypy and pyright evaluate: ``sys.version_info`` compared
    with a tuple (also ``sys.version_info[0]`` or ``[:2]``), ``sys.platform``
    compared with a string or ``sys.platform.startswith(...)``, combined with
    ``not``, ``and`` and ``or``.
    """
    return truth_of(test, _known)


def _known(test: ast.expr, _depth: int) -> bool | None:
    if isinstance(test, ast.Call):
        return _platform_startswith(test)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and len(test.comparators) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _is_sys_attr(left, "platform"):
        if isinstance(right, ast.Constant) and isinstance(right.value, str):
            return _compare(op, sys.platform, right.value)
        return None
    if isinstance(left, ast.Subscript) and _is_sys_attr(left.value, "version_info"):
        return _version_part(left.slice, op, right)
    if _is_sys_attr(left, "version_info"):
        operand = _version_operand(right)
        if operand is not None:
            # Compare as the checkers do: on as many components as the tuple has.
            return _compare(op, _version()[: len(operand)], operand)
    return None


def _platform_startswith(test: ast.Call) -> bool | None:
    """``sys.platform.startswith("linux")``."""
    func = test.func
    if not (isinstance(func, ast.Attribute) and func.attr == "startswith"):
        return None
    if _is_sys_attr(func.value, "platform") and len(test.args) == 1:
        arg = test.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return sys.platform.startswith(arg.value)
    return None


def _version_part(index: ast.expr, op: ast.cmpop, right: ast.expr) -> bool | None:
    """``sys.version_info[0] >= 3``, ``sys.version_info[:2] >= (3, 11)``."""
    if isinstance(index, ast.Constant) and type(index.value) is int and isinstance(right, ast.Constant):
        value = sys.version_info[index.value]
        return _compare(op, value, right.value) if isinstance(value, int) else None
    if isinstance(index, ast.Slice) and index.lower is None and isinstance(index.upper, ast.Constant):
        upper = index.upper.value
        operand = _version_operand(right)
        if type(upper) is int and operand is not None:
            return _compare(op, _version()[:upper], operand)
    return None


def _version() -> tuple[int, ...]:
    return tuple(sys.version_info[:3])


def _is_sys_attr(expr: ast.expr, attr: str) -> bool:
    return isinstance(expr, ast.Attribute) and expr.attr == attr and dotted_name(expr.value) == "sys"


def _version_operand(expr: ast.expr) -> tuple[int, ...] | None:
    if isinstance(expr, ast.Tuple) and all(isinstance(e, ast.Constant) and type(e.value) is int for e in expr.elts):
        return tuple(e.value for e in expr.elts if isinstance(e, ast.Constant) and isinstance(e.value, int))
    return None


def _compare(op: ast.cmpop, left: _Comparable, right: object) -> bool | None:
    """``left <op> right`` for the operand types the checkers evaluate; None otherwise."""
    if not isinstance(right, type(left)):
        return None
    apply = _OPERATORS.get(type(op))
    return None if apply is None else bool(apply(left, right))
