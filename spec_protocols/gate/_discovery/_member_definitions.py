"""Where a class gets each member: its own body, or the base it inherits it from.

A problem is reported at the member's own ``def``, not at the class line: for
an inherited member that is the base's file and line (a mixin in another
module, sglang's ``BaseSpecWorker``). Which base that is follows Python's
method resolution order, computed from the source with C3 as the interpreter
computes it; a class whose bases the source index cannot resolve contributes
what it can, in the order it lists its bases.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from spec_protocols.gate._discovery._source_index import SourceIndex
from spec_protocols.gate._model import MemberDefinition
from spec_protocols.gate._source import statements
from spec_protocols.gate._signatures import describe_statement

__all__ = ["linearize", "member_definitions"]

# Decorators that add to a definition made earlier in the body rather than
# replace it: the getter (or the implementation) is what a reader compares.
_ADDING_DECORATORS = frozenset({"setter", "deleter", "overload"})


def linearize(index: SourceIndex, qualified: str, roots: frozenset[str], depth: int = 0) -> list[str]:
    """C3 over the bases the index resolves. A root ends its branch (its own
    bases, ``ABC`` or ``Generic``, define no worker member); an order C3
    cannot merge (the interpreter would refuse the class) falls back to
    depth-first, so that the reader still gets a location."""
    if qualified in roots or depth > 40:
        return [qualified]
    bases = index.bases(qualified)
    sequences = [linearize(index, b, roots, depth + 1) for b in bases] + [list(bases)]
    order = [qualified]
    while any(sequences):
        sequences = [s for s in sequences if s]
        head = next((s[0] for s in sequences if not any(s[0] in t[1:] for t in sequences)), None)
        if head is None:
            order += [name for s in sequences for name in s if name not in order]
            break
        order.append(head)
        sequences = [s[1:] if s[0] == head else s for s in sequences]
    return list(dict.fromkeys(order))


def _adds_to_earlier(node: ast.stmt) -> bool:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        name = decorator.attr if isinstance(decorator, ast.Attribute) else decorator.id if isinstance(decorator, ast.Name) else ""
        if name in _ADDING_DECORATORS:
            return True
    return False


def _bindings(body: Iterable[ast.stmt]) -> Iterator[tuple[str, ast.stmt]]:
    """``(name, statement)`` for each name a class body binds, in source
    order, in every branch the interpreter may run (a branch both checkers
    evaluate as false is left out)."""
    for stmt, false_branch in statements(body):
        if false_branch is not None:
            continue
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            yield stmt.name, stmt
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    yield target.id, stmt
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            yield stmt.target.id, stmt


def member_definitions(index: SourceIndex, qualified: str, roots: frozenset[str]) -> tuple[MemberDefinition, ...]:
    """Every name ``qualified`` and its bases define, each at the definition
    that a lookup on the class finds (the nearest in the MRO; within one body
    the last, as at runtime, except a property setter or an overload)."""
    found: dict[str, MemberDefinition] = {}
    for owner in linearize(index, qualified, roots):
        located = index.class_def(owner)
        if located is None:
            continue
        module, info = located
        short = info.qualname.rpartition(".")[2]
        own: dict[str, MemberDefinition] = {}
        for name, stmt in _bindings(info.node.body):
            if name in own and _adds_to_earlier(stmt):
                continue
            own[name] = MemberDefinition(name, owner, module.file, stmt.lineno, describe_statement(short, name, stmt))
        for name, definition in own.items():
            found.setdefault(name, definition)
    return tuple(found[name] for name in sorted(found))
