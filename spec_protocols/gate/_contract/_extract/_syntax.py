"""Small questions about ``ast`` nodes that every room of the extractor asks."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence

from spec_protocols.gate._source import self_attribute

__all__ = [
    "Definition",
    "FunctionNode",
    "assignment_of",
    "decorated",
    "exits",
    "falsy",
    "functions",
    "last_name",
    "own_nodes",
    "parameters",
    "passes_kwargs",
    "positional_parameters",
    "returned_value",
    "self_attribute",
    "string",
    "text",
]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
#: What a name of the release can be defined as.
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def functions(body: Iterable[ast.stmt]) -> Iterator[FunctionNode]:
    """The functions (or methods) defined directly in ``body``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function body, not descending into nested functions or classes."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def last_name(expr: ast.expr) -> str:
    """The last name of ``a.b.c``, ``f()``, ``x[i]``: ``c``, ``f``, ``x``."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Call):
        return last_name(expr.func)
    if isinstance(expr, ast.Subscript):
        return last_name(expr.value)
    return ""


def string(expr: ast.expr | None) -> str | None:
    """The value of a string literal."""
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


def text(expr: ast.AST, limit: int = 120) -> str:
    """An expression in words: its source on one line, cut to ``limit`` characters."""
    words = " ".join(ast.unparse(expr).split())
    return words if len(words) <= limit else words[: limit - 3] + "..."


def parameters(func: FunctionNode) -> list[str]:
    """Every parameter name of ``func``, ``*args`` and ``**kwargs`` included."""
    args = func.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def positional_parameters(func: FunctionNode) -> list[str]:
    """The parameters of ``func`` a positional argument can fill, in order."""
    return [a.arg for a in (*func.args.posonlyargs, *func.args.args)]


def passes_kwargs(call: ast.AST, name: str) -> bool:
    """Whether ``call`` is a call passing ``**name`` on."""
    return isinstance(call, ast.Call) and any(
        k.arg is None and isinstance(k.value, ast.Name) and k.value.id == name for k in call.keywords
    )


def assignment_of(func: FunctionNode, value: ast.expr) -> ast.Assign | None:
    """The assignment in ``func`` whose value is the node ``value``."""
    for node in own_nodes(func):
        if isinstance(node, ast.Assign) and node.value is value:
            return node
    return None


def returned_value(func: FunctionNode | None) -> ast.expr | None:
    """What ``func`` returns when, expression statements (a docstring, a
    call) and assertions aside, its body is one ``return``, or ``ret =
    <value>`` then ``return ret``."""
    if func is None:
        return None
    body = [s for s in func.body if not isinstance(s, (ast.Expr, ast.Assert, ast.Pass))]
    if len(body) == 2 and isinstance(body[0], ast.Assign) and isinstance(body[1], ast.Return):
        targets, value = body[0].targets, body[1].value
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and isinstance(value, ast.Name) and value.id == targets[0].id:
            return body[0].value
    if len(body) == 1 and isinstance(body[0], ast.Return):
        return body[0].value
    return None


def decorated(func: FunctionNode, name: str) -> bool:
    """Whether a decorator of ``func`` is named ``name`` (``@overload``, ``@typing.overload``)."""
    return any(last_name(d) == name for d in func.decorator_list)


def falsy(expr: ast.expr) -> bool:
    """A false literal (``False``, ``None``, ``0``, ``""``)."""
    return isinstance(expr, ast.Constant) and not expr.value


def exits(body: Sequence[ast.stmt]) -> bool:
    """Whether a block always leaves (return, raise, continue, break)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return True
    if isinstance(last, ast.If):
        return exits(last.body) and exits(last.orelse)
    return False
