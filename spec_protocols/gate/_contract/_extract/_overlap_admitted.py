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
``__post_init__`` itself under tests that never name the algorithm, skipping
every check for every algorithm alike (0.5.7's dummy model). A test is
certain only when it compares
``self.speculative_algorithm`` with literals (``==``, ``in``, ``is None``),
through ``not``/``and``/``or``. The overlap branch is refused for an
algorithm when every path that starts a server leaves the option ``True``.

The algorithm is compared as the command line spells it (the parser's
``choices``, the enum's member names); a caller of ``ServerArgs`` in Python
who spells it otherwise skips these checks, and is not a server judged
here. A store that renames the algorithm makes every later test of it
uncertain. Whatever the run cannot follow leaves the option unknown: a loop,
``try`` or ``match`` that may store it, a call in an expression of a method
that may, a function handed ``self`` that may (one of the module, or of a
module of the release, read one hop deep; any other function may).

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
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree
from spec_protocols.gate._source import from_imports, truth_of

__all__ = ["overlap_refused"]

#: The option the scheduler's overlap branch is the negation of.
_OPTION: Final = "disable_overlap_schedule"
#: The option that names the algorithm.
_ALGORITHM: Final = "speculative_algorithm"
#: How many methods deep a call of ``self.<method>()`` is run in place.
_MAX_CALL_DEPTH: Final = 4
_Function = ast.FunctionDef | ast.AsyncFunctionDef
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


#: Builtins that cannot store into the object they are given.
_HARMLESS = frozenset({"getattr", "hasattr", "isinstance", "len", "str", "repr", "print", "id", "type", "bool", "int", "float"})


class _Effects:
    """Whether a piece of ``ServerArgs`` may store the option without the run
    seeing it: a store into it anywhere in the piece (a tuple target, a loop,
    a ``match``), ``setattr``, a call of a method that may, or a call that
    hands ``self`` to a function of the module that may (another function
    given ``self``: it may)."""

    def __init__(self, tree: ReleaseTree, module: Module, methods: dict[str, _Function]) -> None:
        self.tree = tree
        self.methods = methods
        self.module_functions = {f.name: f for f in functions(module.run)}
        #: Local name -> the module it is imported from, by any ``from ...
        #: import`` of the module (a function's own included: 0.5.7's
        #: ``get_model_config`` imports ``ModelConfig`` in its body); a name
        #: imported from two modules maps to None (either: it may).
        self.imported: dict[str, str | None] = {}
        for local, source, _ in from_imports(ast.walk(module.tree), module.package):
            self.imported[local] = source if self.imported.get(local, source) == source else None
        self._memo: dict[str, bool] = {}
        self._modules: dict[str, bool] = {}

    def method(self, name: str) -> bool:
        if name not in self._memo:
            self._memo[name] = False  # a recursive call adds nothing
            func = self.methods.get(name)
            self._memo[name] = func is not None and self.within(func.body)
        return self._memo[name]

    def within(self, nodes: Sequence[ast.AST]) -> bool:
        return any(self._node(n) for root in nodes for n in ast.walk(root))

    def _node(self, node: ast.AST) -> bool:
        if _stores(node):
            return True
        if not isinstance(node, ast.Call):
            return False
        called = self_attribute(node.func)
        if called is not None:
            return self.method(called)
        if any(isinstance(a, ast.Name) and a.id == "self" for a in [*node.args, *(k.value for k in node.keywords)]):
            return self._given_self(node.func)
        return False

    def _given_self(self, func: ast.expr) -> bool:
        """Whether a function handed ``self`` may store the option: one of
        this module that stores it or calls ``setattr``; one imported from a
        module of the release that does either anywhere (one hop: what that
        module hands the object on to is not followed); any other."""
        head = func
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name):
            return True
        if head.id in _HARMLESS and head is func:
            return False
        if head.id in self.module_functions and head is func:
            return _stores_anywhere(self.module_functions[head.id])
        source = self.imported.get(head.id)
        found = self.tree.module(source) if source is not None else None
        if source is None or found is None:
            return True  # a function the gate does not read: it may
        if source not in self._modules:
            self._modules[source] = _stores_anywhere(found.tree)
        return self._modules[source]


def _stores_anywhere(root: ast.AST) -> bool:
    """Whether anything under ``root`` stores into an attribute named like the option."""
    return any(_stores(n) for n in ast.walk(root))


def _stores(node: ast.AST) -> bool:
    """A store into an attribute named like the option, or a ``setattr`` that may name it."""
    if isinstance(node, ast.Attribute):
        return node.attr == _OPTION and isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
        named = node.args[1] if len(node.args) > 1 else None
        return not (isinstance(named, ast.Constant) and isinstance(named.value, str) and named.value != _OPTION)
    return False


def _expressions(node: ast.stmt) -> list[ast.AST]:
    """The expressions a statement evaluates itself (not those of the statements nested in it)."""
    if isinstance(node, (ast.If, ast.While)):
        return [node.test]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.iter]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return list(node.items)
    if isinstance(node, ast.Match):
        return [node.subject]
    if isinstance(node, (ast.Try, ast.TryStar, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [node]


class _Run:
    """``__post_init__`` run for one algorithm."""

    def __init__(self, effects: _Effects, algorithm: str, unchecked: frozenset[int]) -> None:
        self.methods = effects.methods
        self.effects = effects
        self.algorithm = algorithm
        #: The ``return``s of ``__post_init__`` that skip every check whatever the algorithm.
        self.unchecked = unchecked
        #: Whether a store renamed the algorithm on some path already run.
        self.renamed = False

    def method(self, name: str, start: _Path, depth: int) -> _Path:
        """``start`` after the method ``name`` ran (its ``return``s end it, not the caller)."""
        func = self.methods.get(name)
        if func is None:
            return start
        if depth > _MAX_CALL_DEPTH:
            return _Path(None) if self.effects.method(name) else start
        returned: list[_Path] = []
        end = self.block(func.body, start, depth, returned)
        return _join([end, *returned])

    def block(self, body: Sequence[ast.stmt], path: _Path, depth: int, returned: list[_Path]) -> _Path:
        for statement in body:
            if path.dead:
                return path
            if not _runs_in_place(statement) and self.effects.within(_expressions(statement)):
                path = _Path(None)  # a call in it may store the option where the run cannot follow
            path = _step(statement, _At(self, path, depth, returned))
        return path

    def leaf(self, expr: ast.expr, _depth: int) -> bool | None:
        """A test certain for this algorithm: ``self.speculative_algorithm`` against literals."""
        if self.renamed:
            return None
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
    """The path after ``node``, any other statement (``match``, ``del``...):
    unknown if it may store the option, else as it was."""
    return _Path(None) if at.run.effects.within([node]) else at.path


def _runs_in_place(node: ast.stmt) -> bool:
    """A statement ``self.<method>()``, whose body the run follows itself."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and self_attribute(node.value.func) is not None


@_step.register
def _raise(node: ast.Raise, at: _At) -> _Path:
    return _Path(None, dead=True)  # no server starts


@_step.register
def _return(node: ast.Return, at: _At) -> _Path:
    if id(node) not in at.run.unchecked:
        at.returned.append(at.path)
    return _Path(None, dead=True)


@_step.register(ast.Assign)
@_step.register(ast.AnnAssign)
@_step.register(ast.AugAssign)
def _store(node: ast.Assign | ast.AnnAssign | ast.AugAssign, at: _At) -> _Path:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if any(self_attribute(t) == _ALGORITHM for t in targets) and string(node.value) != at.run.algorithm:
        # The algorithm renamed (0.5.7: NEXTN stored as "EAGLE" under its own
        # test, which the run for EAGLE never takes): what it is from here on
        # is not read, so no later test of it is certain.
        at.run.renamed = True
    if not any(self_attribute(t) == _OPTION for t in targets):
        # Stored some other way (``self.a, self.disable_overlap_schedule = ...``): unknown.
        return _Path(None) if at.run.effects.within(targets) else at.path
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
    """Zero or more rounds, left by ``break`` anywhere: a loop that may set the option leaves it unknown."""
    return _Path(None) if at.run.effects.within([*node.body, *node.orelse]) else at.path


@_step.register(ast.With)
@_step.register(ast.AsyncWith)
def _with(node: ast.With | ast.AsyncWith, at: _At) -> _Path:
    return at.block(node.body)


@_step.register(ast.Try)
@_step.register(ast.TryStar)
def _try(node: ast.Try | ast.TryStar, at: _At) -> _Path:
    tried = at.block([*node.body, *node.orelse])
    # A handler starts wherever the body stopped: unknown if the body may set the option.
    caught = _Path(None) if at.run.effects.within(node.body) else at.path
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
    post_init = methods.get("__post_init__")
    if post_init is None:
        return frozenset()
    effects = _Effects(tree, module, methods)
    unchecked = _unchecked_exits(post_init)
    refused: set[str] = set()
    for algorithm in algorithms:
        end = _Run(effects, algorithm, unchecked).method("__post_init__", _Path(None), 0)
        if not end.dead and end.value is True:
            refused.add(algorithm)
    return frozenset(refused)


def _unchecked_exits(post_init: _Function) -> frozenset[int]:
    """The ``return``s of ``__post_init__`` under tests that never name the
    algorithm (0.5.7: ``if self.model_path.lower() in ["none", "dummy"]:
    return``, a server with no model): they skip every check for every
    algorithm alike, and such a server's arguments were never validated,
    so it is not one judged here. A return under a test of the algorithm
    is a path like any other."""
    parents = {id(c): n for n in ast.walk(post_init) for c in ast.iter_child_nodes(n)}
    found: set[int] = set()
    for node in ast.walk(post_init):
        if not isinstance(node, ast.Return):
            continue
        tests: list[ast.expr] = []
        at: ast.AST | None = parents.get(id(node))
        while at is not None and at is not post_init:
            if isinstance(at, (ast.If, ast.While)):
                tests.append(at.test)
            at = parents.get(id(at))
        if not any(self_attribute(n) == _ALGORITHM for t in tests for n in ast.walk(t)):
            found.add(id(node))
    return frozenset(found)
