"""A definition as an author reads it: ``Owner.name(self, batch: ScheduleBatch) -> R``.

The gate's messages say what a call site needs and what a class has, in the
words of the source on both sides: the protocol's member as ``_protocols.py``
writes it (discovery's harness stage renders it) and the class's own ``def``
as its file writes it (discovery renders it). Both are rendered here, from
:mod:`ast`, so that every checker's message shows the two alike, whatever
that checker prints of its own (mypy's ``Callable[[...], R]``, pyright's
``(batch: ...) -> R``).
"""

from __future__ import annotations

import ast

__all__ = ["describe_function", "describe_statement"]

#: A default longer than this is shown as ``...``: the signature's shape is
#: what the reader compares, not the default's expression.
_DEFAULT_WIDTH = 24


def _parameter(arg: ast.arg, default: ast.expr | None) -> str:
    text = arg.arg
    if arg.annotation is not None:
        text += f": {ast.unparse(arg.annotation)}"
    if default is not None:
        shown = ast.unparse(default)
        shown = shown if len(shown) <= _DEFAULT_WIDTH else "..."
        # PEP 8: spaces around "=" only when the parameter is annotated.
        text += f" = {shown}" if arg.annotation is not None else f"={shown}"
    return text


def _parameters(args: ast.arguments) -> str:
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    parts = [_parameter(arg, default) for arg, default in zip(positional, defaults, strict=True)]
    if args.posonlyargs:
        parts.insert(len(args.posonlyargs), "/")
    if args.vararg is not None:
        parts.append("*" + _parameter(args.vararg, None))
    elif args.kwonlyargs:
        parts.append("*")
    parts += [_parameter(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg is not None:
        parts.append("**" + _parameter(args.kwarg, None))
    return ", ".join(parts)


def describe_function(owner: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``@deco async Owner.name(params) -> R``: decorators first (a
    ``property`` or ``staticmethod`` changes what a caller meets), then the
    signature as written."""
    decorators = "".join(f"@{ast.unparse(d)} " for d in node.decorator_list)
    prefix = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"{decorators}{prefix}{owner}.{node.name}({_parameters(node.args)}){returns}"


def describe_statement(owner: str, name: str, node: ast.stmt) -> str:
    """A class-body statement that binds ``name``, as above for a function,
    else ``Owner.name: T = value`` (a value longer than a short expression
    is shown as ``...``)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return describe_function(owner, node)
    annotation = f": {ast.unparse(node.annotation)}" if isinstance(node, ast.AnnAssign) else ""
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
    shown = ""
    if value is not None:
        text = ast.unparse(value)
        shown = f" = {text}" if len(text) <= 2 * _DEFAULT_WIDTH else " = ..."
    return f"{owner}.{name}{annotation}{shown}"
