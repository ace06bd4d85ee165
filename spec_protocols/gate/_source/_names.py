"""Names in source: dotted names, relative imports made absolute, what a ``from`` import binds, what an assignment assigns to."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

__all__ = ["absolute_module", "assigned", "dotted_name", "from_imports", "package_of", "self_attribute"]


def dotted_name(expr: ast.expr) -> str | None:
    """``a.b.C`` for a Name/Attribute chain (``Base[T]`` reads as ``Base``); None otherwise."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        head = dotted_name(expr.value)
        return None if head is None else f"{head}.{expr.attr}"
    if isinstance(expr, ast.Subscript):  # Generic[T], SomeBase[int]
        return dotted_name(expr.value)
    return None


def package_of(module: str, is_package: bool) -> str:
    """The package a relative import in ``module`` starts from: the module
    itself for a package (its ``__init__``), else its parent."""
    return module if is_package else module.rpartition(".")[0]


def absolute_module(package: str, module: str | None, level: int) -> str | None:
    """The absolute name of ``from <level dots><module> import ...`` inside
    ``package``; None when the dots climb above the top-level package."""
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base) or None


def from_imports(nodes: Iterable[ast.AST], package: str) -> Iterator[tuple[str, str, str]]:
    """``(local name, absolute module, imported name)`` for each name the
    ``from ... import`` statements among ``nodes`` bind, in order (a star
    import binds ``*``); an import whose module cannot be made absolute binds
    nothing."""
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            source = absolute_module(package, node.module, node.level)
            if source:
                for alias in node.names:
                    yield alias.asname or alias.name, source, alias.name


def assigned(node: ast.AST) -> list[ast.expr]:
    """The targets ``node`` assigns to when it is an assignment (``=``, augmented,
    or annotated, with a value or without); ``[]`` for any other node."""
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def self_attribute(expr: ast.AST | None) -> str | None:
    """``attr`` when ``expr`` is ``self.<attr>``."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None
