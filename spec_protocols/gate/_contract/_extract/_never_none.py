"""Whether an argument expression is statically certain not to be ``None``.

The scheduler's overlap branch passes ``on_publish=partial(self.future_map.publish,
future_indices)`` (managers/scheduler.py ``Scheduler.run_batch``, every release
from 0.5.17 to 0.5.23, through its ``fwd_kwargs`` dict): a value that is never
``None``, so a worker need not accept ``None`` there. The synchronous branch's
``pp_proxy_tensors=pp_proxy_tensors`` is a name that may be ``None``: the
protocol's ``PPProxyTensors | None`` stands. Only expressions whose value is
certain without running anything count: a literal (other than ``None``), a
display or comprehension, an f-string, a lambda, ``functools.partial(...)`` /
``partialmethod(...)``, a call of a builtin type (``dict(...)``, ``tuple(...)``),
and a conditional expression whose two arms are such. A name, an attribute, any
other call (a function may return ``None``) or an operator (``__add__`` may) is
not certain.
"""

from __future__ import annotations

import ast

__all__ = ["never_none"]

#: Callees whose result is never ``None``: functools' partial objects and the
#: builtin types, whose constructors return an instance.
_CERTAIN_CALLEES = frozenset(
    {
        "partial",
        "partialmethod",
        "dict",
        "list",
        "tuple",
        "set",
        "frozenset",
        "str",
        "bytes",
        "int",
        "float",
        "bool",
        "complex",
        "object",
    }
)

_DISPLAYS = (
    ast.Lambda,
    ast.JoinedStr,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _callee(func: ast.expr) -> str | None:
    """``partial`` for ``partial`` / ``functools.partial``; None for anything else."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("functools", "builtins"):
        return func.attr
    return None


def never_none(value: ast.expr | None) -> bool:
    """Whether ``value`` is statically certain not to evaluate to ``None`` (see the module docstring)."""
    if value is None:
        return False
    if isinstance(value, ast.Constant):
        return value.value is not None
    if isinstance(value, _DISPLAYS):
        return True
    if isinstance(value, ast.IfExp):
        return never_none(value.body) and never_none(value.orelse)
    if isinstance(value, ast.Call):
        return _callee(value.func) in _CERTAIN_CALLEES
    return False
