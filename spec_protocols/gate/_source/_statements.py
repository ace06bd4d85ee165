"""The statements a body runs at its own level: the one walker every reader of module (and class) bodies uses.

A module's names are bound by the statements its import runs, and those are
not only its top-level statements: a class or an import under ``if`` /
``else``, ``try`` / ``except`` / ``else`` / ``finally``, ``with``, ``for``,
``while`` or ``match`` is bound when the import runs that branch. The same
holds for a class body. Function and class bodies nested in the body are
not entered: they run later, or bind names of their own.

Each statement comes with what the static checkers know about whether it
runs: a branch whose ``if`` test they evaluate as false
(:func:`~spec_protocols.gate._source._static_truth.static_truth`: a
``sys.version_info`` or ``sys.platform`` comparison) is marked with that test
(:class:`FalseBranch`), and so is everything below it. A reader that reads
the source for what runs on any interpreter (the contract, a release's own
source) ignores the mark.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from spec_protocols.gate._source._static_truth import static_truth

__all__ = ["FalseBranch", "blocks", "body_nodes", "statements"]


@dataclass(frozen=True, slots=True)
class FalseBranch:
    """A block that runs only when ``test`` is ``holds``, which the static checkers find it is not."""

    test: ast.expr
    holds: bool

    @property
    def condition(self) -> str:
        """The condition the block runs under, in words (source text)."""
        text = ast.unparse(self.test)
        return text if self.holds else f"not ({text})"


def blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists a compound statement may run at its own level, in
    source order (function and class bodies excluded: they are scopes of their own)."""
    if isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While):
        yield stmt.body
        yield stmt.orelse
    elif isinstance(stmt, ast.Try | ast.TryStar):
        yield stmt.body
        for handler in stmt.handlers:
            yield handler.body
        yield stmt.orelse
        yield stmt.finalbody
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        yield stmt.body
    elif isinstance(stmt, ast.Match):
        for case in stmt.cases:
            yield case.body


def statements(body: Iterable[ast.stmt], under: FalseBranch | None = None) -> Iterator[tuple[ast.stmt, FalseBranch | None]]:
    """Every statement ``body`` runs at its own level, each before the
    statements inside it, in source order, with the statically false branch
    it is in (None: the checkers see it run)."""
    for stmt in body:
        yield stmt, under
        if under is None and isinstance(stmt, ast.If):
            truth = static_truth(stmt.test)
            yield from statements(stmt.body, FalseBranch(stmt.test, True) if truth is False else None)
            yield from statements(stmt.orelse, FalseBranch(stmt.test, False) if truth is True else None)
        else:
            for block in blocks(stmt):
                yield from statements(block, under)


def body_nodes(body: Iterable[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``body``, in source order, not descending into nested
    functions, lambdas or classes (their own nodes are yielded, not their insides)."""
    stack: list[ast.AST] = list(reversed([*body]))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
