"""Reader: on which scheduler branches the server's own settings let each built-in algorithm run.

The scheduler takes its overlap branch when ``enable_overlap`` (``not
server_args.disable_overlap_schedule``) holds. ``ServerArgs`` settles that
option while it checks its arguments: 0.5.7's ``_handle_speculative_decoding``
sets ``self.disable_overlap_schedule = True`` for STANDALONE whatever the
command line said, and for EAGLE only when an environment switch is off. So
a class that the scheduler builds "when overlap is on" never meets
STANDALONE, and a use the scheduler skips for EAGLE on the overlap branch is
never made by it.

How it is read: ``ServerArgs.__post_init__`` is run in the abstract, once per
algorithm, with the option's value unknown at the start (the command line may
set it). Its statements run in order; a call of another method of the class
(``self._handle_speculative_decoding()``) runs that method's body in place;
an ``if`` whose test is certain for the algorithm takes one side, one whose
test is not takes both and keeps what they agree on; a path that raises
starts no server and is dropped, and so is one that returns from
``__post_init__`` itself, skipping every check (0.5.7's dummy model). A test is certain only when it compares
``self.speculative_algorithm`` with literals (``==``, ``in``, ``is None``),
through ``not``/``and``/``or``. The overlap branch is refused for an
algorithm when every path that starts a server leaves the option ``True``.

Only refusals are read (never "overlap is forced on"): the scheduler may
disable overlap for reasons of its own, but it cannot enable it against the
option. A release whose ``ServerArgs`` cannot be found or read refuses
nothing.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from spec_protocols.gate._contract._extract._syntax import functions, self_attribute, string
from spec_protocols.gate._contract._extract._tree import ReleaseTree
from spec_protocols.gate._source import truth_of

__all__ = ["overlap_refused"]

#: The option the scheduler's overlap branch is the negation of.
_OPTION: Final = "disable_overlap_schedule"
#: The option that names the algorithm.
_ALGORITHM: Final = "speculative_algorithm"
#: How many methods deep a call of ``self.<method>()`` is run in place.
_MAX_CALL_DEPTH: Final = 4
#: The option's value on a path: True, False, or None (unknown).
_Value = bool | None


class _Path:
    """The state of one path: the option's value; ``dead`` once it raised."""

    __slots__ = ("dead", "value")

    def __init__(self, value: _Value, dead: bool = False) -> None:
        self.value = value
        self.dead = dead


def _join(paths: Sequence[_Path]) -> _Path:
    """The paths that go on, as one: their agreed value, else unknown; dead when all are."""
    live = [p for p in paths if not p.dead]
    if not live:
        return _Path(None, dead=True)
    first = live[0].value
    return _Path(first if all(p.value is first for p in live) else None)


class _Run:
    """``__post_init__`` run for one algorithm."""

    def __init__(self, methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef], algorithm: str) -> None:
        self.methods = methods
        self.algorithm = algorithm

    def method(self, name: str, start: _Path, depth: int) -> _Path:
        """``start`` after the method ``name`` ran (its ``return``s end it, not the caller)."""
        func = self.methods.get(name)
        if func is None or depth > _MAX_CALL_DEPTH:
            return start
        returned: list[_Path] = []
        end = self.block(func.body, start, depth, returned)
        if depth == 0:
            # A return from __post_init__ itself skips every check that
            # follows (0.5.7: ``if self.model_path.lower() in ["none",
            # "dummy"]: return``, a server with no model): such a server's
            # arguments were never validated, and it is not one judged here.
            return end
        return _join([end, *returned])

    def block(self, body: Sequence[ast.stmt], path: _Path, depth: int, returned: list[_Path]) -> _Path:
        for statement in body:
            if path.dead:
                return path
            path = _step(statement, _At(self, path, depth, returned))
        return path

    def leaf(self, expr: ast.expr, _depth: int) -> bool | None:
        """A test certain for this algorithm: ``self.speculative_algorithm`` against literals."""
        if self_attribute(expr) == _ALGORITHM:
            return True  # a speculative algorithm is named
        if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1 and self_attribute(expr.left) == _ALGORITHM):
            return None
        op, right = expr.ops[0], expr.comparators[0]
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
            return isinstance(op, ast.IsNot)
        if isinstance(op, (ast.Eq, ast.NotEq)) and string(right) is not None:
            return (string(right) == self.algorithm) is isinstance(op, ast.Eq)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            names = [string(e) for e in right.elts]
            if None in names:
                return None
            return (self.algorithm in names) is isinstance(op, ast.In)
        return None


@dataclass(frozen=True, slots=True)
class _At:
    """Where a statement runs: the run, the path so far, how many calls deep,
    and where the enclosing method's ``return``s collect."""

    run: _Run
    path: _Path
    depth: int
    returned: list[_Path]

    def block(self, body: Sequence[ast.stmt], path: _Path | None = None) -> _Path:
        return self.run.block(body, self.path if path is None else path, self.depth, self.returned)


@functools.singledispatch
def _step(node: ast.stmt, at: _At) -> _Path:
    """The path after ``node``: any other statement leaves the option as it was."""
    return at.path


@_step.register
def _raise(node: ast.Raise, at: _At) -> _Path:
    return _Path(None, dead=True)  # no server starts


@_step.register
def _return(node: ast.Return, at: _At) -> _Path:
    at.returned.append(at.path)
    return _Path(None, dead=True)


@_step.register(ast.Assign)
@_step.register(ast.AnnAssign)
@_step.register(ast.AugAssign)
def _store(node: ast.Assign | ast.AnnAssign | ast.AugAssign, at: _At) -> _Path:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not any(self_attribute(t) == _OPTION for t in targets):
        return at.path
    value = node.value
    literal = value.value if isinstance(value, ast.Constant) and isinstance(value.value, bool) else None
    return _Path(None if isinstance(node, ast.AugAssign) else literal)


@_step.register
def _call(node: ast.Expr, at: _At) -> _Path:
    """``self.<method>()``: that method's body, run in place."""
    called = self_attribute(node.value.func) if isinstance(node.value, ast.Call) else None
    return at.run.method(called, at.path, at.depth + 1) if called else at.path


@_step.register
def _if(node: ast.If, at: _At) -> _Path:
    test = truth_of(node.test, at.run.leaf)
    if test is True:
        return at.block(node.body)
    if test is False:
        return at.block(node.orelse)
    return _join([at.block(node.body), at.block(node.orelse)])


@_step.register(ast.For)
@_step.register(ast.AsyncFor)
@_step.register(ast.While)
def _loop(node: ast.For | ast.AsyncFor | ast.While, at: _At) -> _Path:
    """Zero or more rounds: a loop that sets the option leaves it unknown."""
    return _join([at.path, at.block(node.body), at.block(node.orelse)])


@_step.register(ast.With)
@_step.register(ast.AsyncWith)
def _with(node: ast.With | ast.AsyncWith, at: _At) -> _Path:
    return at.block(node.body)


@_step.register(ast.Try)
@_step.register(ast.TryStar)
def _try(node: ast.Try | ast.TryStar, at: _At) -> _Path:
    tried = at.block([*node.body, *node.orelse])
    # A handler starts where the body stopped: before it ran or after it.
    caught = _join([at.path, tried])
    handled = [at.block(h.body, caught) for h in node.handlers]
    return at.block(node.finalbody, _join([tried, *handled]))


def overlap_refused(tree: ReleaseTree, algorithms: Sequence[str]) -> frozenset[str]:
    """The ``algorithms`` (enum member names, as the command line spells
    them) for which every server that starts has ``disable_overlap_schedule``
    set: they never take the scheduler's overlap branch."""
    module = tree.module("sglang.srt.server_args")
    if module is None:
        return frozenset()
    cls = next((n for n in module.run if isinstance(n, ast.ClassDef) and n.name == "ServerArgs"), None)
    if cls is None:
        return frozenset()
    methods = {f.name: f for f in functions(cls.body)}
    if "__post_init__" not in methods:
        return frozenset()
    refused: set[str] = set()
    for algorithm in algorithms:
        end = _Run(methods, algorithm).method("__post_init__", _Path(None), 0)
        if not end.dead and end.value is True:
            refused.add(algorithm)
    return frozenset(refused)
