"""Reader: the registration flag that selects the scheduler's overlap branch.

A plugin registers its algorithm with ``SpeculativeAlgorithm.register(name,
supports_overlap=...)`` (``speculative/spec_info.py``), which keeps the flag
on a ``CustomSpecAlgo`` (``speculative/spec_registry.py``). Its
``create_worker`` refuses overlap scheduling without the flag::

    if not cfg.disable_overlap_schedule and not self.supports_overlap:
        raise ValueError(...)

so an algorithm registered with the flag false runs only where the server
disables overlap scheduling: the scheduler's ``enable_overlap`` (``not
server_args.disable_overlap_schedule``) is false, and ``run_batch`` takes its
synchronous branch (``forward_batch_generation(batch,
pp_proxy_tensors=...)``), never the overlap one (``on_publish=``).

The flag is found by what that ``if`` does, never by its name: a method of a
class in ``speculative/`` whose ``if`` reads ``disable_overlap_schedule``
and a negated ``self.<flag>``, and raises.
"""

from __future__ import annotations

import ast
import re

from spec_protocols.gate._contract._extract._syntax import functions, self_attribute
from spec_protocols.gate._contract._extract._tree import ReleaseTree, find_class, modules_matching

__all__ = ["overlap_flag", "overlap_flag_default"]

_SERVER_OPTION = "disable_overlap_schedule"


def overlap_flag(tree: ReleaseTree) -> str | None:
    """The algorithm's attribute without which its ``create_worker`` refuses overlap scheduling; None: none."""
    for module in modules_matching(tree, "spec_registry.py", re.compile(rf"\b{_SERVER_OPTION}\b")):
        for cls in (n for n in module.tree.body if isinstance(n, ast.ClassDef)):
            for func in functions(cls.body):
                for node in ast.walk(func):
                    if isinstance(node, ast.If):
                        flag = _refusing_flag(node)
                        if flag is not None:
                            return flag
    return None


def _refusing_flag(node: ast.If) -> str | None:
    """``if not <option> and not self.<flag>: raise``: the flag."""
    if not any(isinstance(s, ast.Raise) for s in node.body):
        return None
    test = node.test
    operands = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    reads_option = any(
        isinstance(n, ast.Attribute) and n.attr == _SERVER_OPTION for operand in operands for n in ast.walk(operand)
    )
    if not reads_option:
        return None
    for operand in operands:
        if isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not):
            flag = self_attribute(operand.operand)
            if flag is not None:
                return flag
    return None


def overlap_flag_default(tree: ReleaseTree, flag: str) -> bool:
    """The default of ``flag`` in ``SpeculativeAlgorithm.register`` (``supports_overlap: bool = False``,
    ``speculative/spec_info.py``): what a registration that does not pass it gets.
    False where the release writes no literal default (the flag's falsy state
    is the one ``create_worker`` refuses overlap in)."""
    found = find_class(tree, "spec_info.py", "SpeculativeAlgorithm")
    register = next((f for f in functions(found[1].body) if f.name == "register"), None) if found else None
    if register is None:
        return False
    args = register.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    for arg, default in pairs:
        if arg.arg == flag and isinstance(default, ast.Constant) and isinstance(default.value, bool):
            return default.value
    return False
