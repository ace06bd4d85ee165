"""The built-in workers: the classes ``SpeculativeAlgorithm.create_worker`` returns, each where it is defined.

Every branch imports its worker and returns it (``from
sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2; return
DFlashWorkerV2``); a return of anything else (0.5.23's
``platform_worker_cls``, an out-of-tree platform's replacement) names no
class of sglang and is left out. A name a package re-exports is followed to
the module that defines it (the gate names a class by its defining module).
The module's names are those its import binds (:attr:`Module.run`: also
under ``if``, ``try``, ``with``, ``for``, ``match``).

Each worker also carries its *reach*: for which algorithm on which scheduler
branch ``create_worker`` can return it. The conditions on the ``return``'s
path (its ``if``s, and the negation of each earlier ``if`` whose body always
leaves) are evaluated for every member of the enum on each branch: a
predicate of ``self`` as the enum answers it for that member, the overlap
setting (``enable_overlap = not server_args.disable_overlap_schedule``) as
the branch says; anything else (``server_args.enable_multi_layer_eagle``)
may hold either way. 0.5.10 returns ``EAGLEWorkerV2`` only for EAGLE and
EAGLE3 on the overlap branch and the V1 ``EAGLEWorker`` on the synchronous one.

Some releases also build a worker in the scheduler itself, outside
``create_worker``: 0.5.7 assigns ``self.draft_worker =
MultiLayerEagleWorkerV2(...)`` under ``server_args.enable_multi_layer_eagle``
and ``self.enable_overlap``. Such an assignment, in a class of the scheduler
side, is read the same way, its reach from the conditions on its path (the
algorithm as ``self.spec_algorithm.<predicate>()`` asks it).

A reach is then narrowed by what the server's own checks allow
(:mod:`._overlap_admitted`): an algorithm for which ``ServerArgs`` always
disables overlap scheduling has no overlap pair (0.5.7's STANDALONE and
NGRAM). A reach that this would empty is kept whole: the release's checks
and its builder disagree, and the gate does not pick one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import replace

from spec_protocols.gate._contract._extract._algorithms import Algorithms, registry_calls
from spec_protocols.gate._contract._extract._overlap_admitted import overlap_refused
from spec_protocols.gate._contract._extract._scheduler import SCHEDULER_SIDE, is_worker_class
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import FunctionNode, exits, functions, last_name, own_nodes, self_attribute
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree, find_class
from spec_protocols.gate._contract._release_contract import OVERLAP, SYNCHRONOUS, BuiltInWorker, Site
from spec_protocols.gate._source import from_imports, truth_of

__all__ = ["built_in_workers"]

#: How many re-exports deep a name is followed.
_MAX_HOPS = 3
#: The server option whose negation selects the overlap branch, and the scheduler's name for it.
_DISABLE_OVERLAP = "disable_overlap_schedule"
_ENABLE_OVERLAP = "enable_overlap"

#: The scheduler's field that holds the spec worker it builds (its
#: ``model_worker`` is the target worker outside speculative mode).
_SPEC_FIELD = "draft_worker"
#: The scheduler's name for the algorithm object whose predicates a path tests.
_SPEC_ALGORITHM = "spec_algorithm"

#: One condition on a statement's path: the test and the value it has there.
_Condition = tuple[ast.expr, bool]


def built_in_workers(tree: ReleaseTree) -> tuple[BuiltInWorker, ...]:
    """The classes the release builds for its own algorithms, each where it is
    defined: those ``SpeculativeAlgorithm.create_worker`` returns or, in the
    releases with an algorithm registry (0.5.4.post2-0.5.7), those the
    factories registered for the built-in names build
    (``register_speculative_algorithm("EAGLE", worker_cls=_create_eagle_worker)``)."""
    found = find_class(tree, "spec_info.py", "SpeculativeAlgorithm")
    if found is None:
        return ()
    module, cls = found
    workers: dict[str, BuiltInWorker] = {}
    create = next((f for f in functions(cls.body) if f.name == "create_worker"), None)
    if create is not None:
        _add_returned(tree, module, cls, create, f"{cls.name}.create_worker", None, workers)
    for name, factory in _registered_factories(module):
        _add_returned(tree, module, None, factory, factory.name, name, workers)
    _add_scheduler_built(tree, workers)
    refused = overlap_refused(tree, [m for m in tree.algorithms.members if m != "NONE"])
    return tuple(_admitted(worker, refused) for worker in workers.values())


def _admitted(worker: BuiltInWorker, refused: frozenset[str]) -> BuiltInWorker:
    """``worker`` less the overlap pairs of the algorithms whose servers
    always disable overlap scheduling (kept whole when none would be left)."""
    kept = tuple(pair for pair in worker.reach if not (pair[1] == OVERLAP and pair[0] in refused))
    return replace(worker, reach=kept) if kept and kept != worker.reach else worker


def _add_returned(
    tree: ReleaseTree,
    module: Module,
    cls: ast.ClassDef | None,
    function: FunctionNode,
    where_named: str,
    algorithm: str | None,
    workers: dict[str, BuiltInWorker],
) -> None:
    """Add to ``workers`` each class ``function`` returns (or returns an
    instance of), with its reach (``algorithm``: the one algorithm the
    function serves, a registered factory's name)."""
    imports, defined = _names_seen(module, cls, function, where_named)
    paths = dict(_paths(function.body, (), _is_return))
    reading = _Reach(tree.algorithms, function)
    returns = sorted((n for n in own_nodes(function) if isinstance(n, ast.Return)), key=lambda n: (n.lineno, n.col_offset))
    for node in returns:
        reach = reading.pairs(paths[node], algorithm) if node in paths else ()
        for name in _returned_names(node.value):
            where = _where(tree, module, imports, defined, name)
            if where is not None:
                _add(workers, BuiltInWorker(where[0], where[1], Site(module.rel, where_named, node.lineno), reach))


def _add_scheduler_built(tree: ReleaseTree, workers: dict[str, BuiltInWorker]) -> None:
    """Add to ``workers`` each class a scheduler-side class builds into its
    spec worker field itself (``self.draft_worker = Cls(...)``), with its reach."""
    assigns = re.compile(rf"self\.{_SPEC_FIELD}\s*=\s*\w+\(")
    for folder in SCHEDULER_SIDE:
        for module in tree.modules_among(tree.files_under(folder), assigns):
            for cls in (n for n in module.run if isinstance(n, ast.ClassDef) and not is_worker_class(n)):
                for method in functions(cls.body):
                    where_named = f"{cls.name}.{method.name}"
                    imports, defined = _names_seen(module, cls, method, where_named)
                    reading = _Reach(tree.algorithms, method)
                    for node, path in _paths(method.body, (), _builds_spec_worker):
                        assert isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                        where = _where(tree, module, imports, defined, last_name(node.value.func))
                        if where is not None and _defines(tree.module(where[0]), where[1]):
                            site = Site(module.rel, where_named, node.lineno)
                            _add(workers, BuiltInWorker(where[0], where[1], site, reading.pairs(path)))


def _builds_spec_worker(statement: ast.stmt) -> bool:
    """``self.draft_worker = Name(...)``."""
    return (
        isinstance(statement, ast.Assign)
        and any(self_attribute(t) == _SPEC_FIELD for t in statement.targets)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
    )


def _is_return(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Return)


def _where(
    tree: ReleaseTree, module: Module, imports: dict[str, tuple[str, str]], defined: set[str], name: str
) -> tuple[str, str] | None:
    """Where the class ``name`` (as ``module`` binds it) is defined, or None."""
    if name in imports:
        return _defining_module(tree, *imports[name])
    if name in defined:
        return (module.name, name)
    return None


def _defines(module: Module | None, name: str) -> bool:
    """Whether ``module`` (of the release) defines class ``name``."""
    return module is not None and any(isinstance(s, ast.ClassDef) and s.name == name for s in module.run)


def _add(workers: dict[str, BuiltInWorker], worker: BuiltInWorker) -> None:
    """Record ``worker``; one built on two paths reaches either path's pairs
    (every pair when either was not read)."""
    known = workers.get(worker.dotted)
    if known is None:
        workers[worker.dotted] = worker
    elif known.reach and worker.reach:
        workers[worker.dotted] = replace(known, reach=tuple(sorted({*known.reach, *worker.reach})))
    else:
        workers[worker.dotted] = replace(known, reach=())


def _registered_factories(module: Module) -> list[tuple[str, FunctionNode]]:
    """(algorithm name, factory function) for each module-level
    ``register_speculative_algorithm(NAME, FACTORY, ...)`` (or ``worker_cls=``)
    of ``module`` whose factory is a function the module defines."""
    defined = {f.name: f for f in functions(module.run)}
    found: list[tuple[str, FunctionNode]] = []
    for call in registry_calls(module.run):
        name = call.args[0] if call.args else None
        factory = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "worker_cls"), None)
        if isinstance(name, ast.Constant) and isinstance(name.value, str) and isinstance(factory, ast.Name) and factory.id in defined:
            found.append((name.value.upper(), defined[factory.id]))
    return found


def _paths(
    body: list[ast.stmt], holding: tuple[_Condition, ...], wanted: Callable[[ast.stmt], bool]
) -> list[tuple[ast.stmt, tuple[_Condition, ...]]]:
    """Every ``wanted`` statement directly in ``body`` or its ``if``s, with
    the conditions that hold where it runs (an ``if`` whose body always
    leaves makes its test false below it). Loops, ``with`` and ``try`` are
    entered without a condition of their own."""
    found: list[tuple[ast.stmt, tuple[_Condition, ...]]] = []
    for statement in body:
        if wanted(statement):
            found.append((statement, holding))
        elif isinstance(statement, ast.If):
            found += _paths(statement.body, (*holding, (statement.test, True)), wanted)
            found += _paths(statement.orelse, (*holding, (statement.test, False)), wanted)
            if exits(statement.body) and not statement.orelse:
                holding = (*holding, (statement.test, False))
        elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)):
            for field_name in ("body", "orelse", "finalbody"):
                found += _paths(getattr(statement, field_name, []), holding, wanted)
            for handler in getattr(statement, "handlers", []):
                found += _paths(handler.body, holding, wanted)
    return found


class _Reach:
    """Evaluates a path's conditions for one enum member on one branch."""

    def __init__(self, algorithms: Algorithms, create: FunctionNode) -> None:
        self.algorithms = algorithms
        # Locals bound once by a plain assignment (``enable_overlap = not ...``).
        bound: dict[str, list[ast.expr]] = {}
        for node in own_nodes(create):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                bound.setdefault(node.targets[0].id, []).append(node.value)
        self.bound = {name: values[0] for name, values in bound.items() if len(values) == 1}

    def pairs(self, path: tuple[_Condition, ...], algorithm: str | None = None) -> tuple[tuple[str, str], ...]:
        """The (member, branch) pairs for which no condition of ``path`` is
        certainly false (``algorithm``: that member only)."""
        members = [m for m in self.algorithms.members if m != "NONE" and (algorithm is None or m == algorithm)]
        return tuple(
            (member, branch)
            for member in members
            for branch in (OVERLAP, SYNCHRONOUS)
            if all(self.value(test, member, branch) is not (not wanted) for test, wanted in path)
        )

    def value(self, expr: ast.expr, member: str, branch: str, depth: int = 0) -> bool | None:
        return truth_of(expr, lambda leaf, at: self._leaf(leaf, member, branch, at), depth, 8)

    def _leaf(self, expr: ast.expr, member: str, branch: str, depth: int) -> bool | None:
        if isinstance(expr, ast.Attribute) and expr.attr == _DISABLE_OVERLAP:
            return branch == SYNCHRONOUS
        if isinstance(expr, (ast.Name, ast.Attribute)) and (expr.id if isinstance(expr, ast.Name) else expr.attr) == _ENABLE_OVERLAP:
            # The scheduler's own name for the setting, however the function got it.
            return branch == OVERLAP
        if isinstance(expr, ast.Name) and expr.id in self.bound:
            return self.value(self.bound[expr.id], member, branch, depth + 1)
        asked = _asked_of_algorithm(expr)
        return self.algorithms.holds(asked if asked is not None else expr, member)


def _asked_of_algorithm(expr: ast.expr) -> ast.expr | None:
    """``self.spec_algorithm.is_eagle()`` (the scheduler asking its algorithm
    object) in the enum's own terms, ``self.is_eagle()``; None for anything else."""
    if (
        isinstance(expr, ast.Call)
        and not expr.args
        and isinstance(expr.func, ast.Attribute)
        and last_name(expr.func.value) == _SPEC_ALGORITHM
    ):
        return ast.Call(ast.Attribute(ast.Name("self", ast.Load()), expr.func.attr, ast.Load()), [], [])
    return None


def _names_seen(
    module: Module, cls: ast.ClassDef | None, function: FunctionNode, where_named: str
) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """:func:`_module_names` as ``function`` sees them: its own imports shadow the module's."""
    imports, defined = _module_names(module)
    imports.update(Scope(module, cls, function, where_named, Roots()).imports)
    return imports, defined


def _module_names(module: Module) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """What ``module``'s import binds: the names it imports (local name ->
    (module, name), the last import of a name winning) and the classes it defines."""
    imports = {local: (source, name) for local, source, name in from_imports(module.run, module.package)}
    return imports, {stmt.name for stmt in module.run if isinstance(stmt, ast.ClassDef)}


def _returned_names(value: ast.expr | None) -> list[str]:
    """The names a ``return`` gives back: ``return X``, ``return A if c else B``,
    and a registered factory's ``return X(**kwargs)``."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.IfExp):
        return _returned_names(value.body) + _returned_names(value.orelse)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return [value.func.id]
    return []


def _defining_module(tree: ReleaseTree, dotted: str, name: str, hops: int = 0) -> tuple[str, str]:
    """Where ``name``, imported from ``dotted``, is defined: a package that
    re-exports it is followed. A module the tree lacks is taken at its word."""
    module = tree.module(dotted)
    if module is None or hops > _MAX_HOPS or _defines(module, name):
        return dotted, name
    for local, source, imported in from_imports(module.run, module.package):
        if local == name:
            return _defining_module(tree, source, imported, hops + 1)
    return dotted, name
