"""Reader: the scheduler functions that run on one branch of the event loop only.

A use of the spec worker is tagged with the scheduler branch it is on
(:attr:`~spec_protocols.gate._contract._release_contract.Use.branch`) where
the conditions around it read the scheduler's overlap field (``if
self.enable_overlap:``). Many uses sit in a helper whose own body reads no
such field but which only one event loop calls: sglang 0.5.23 reads
``last_shared_read_runner`` in ``Scheduler._apply_war_barrier``, called only
by ``event_loop_overlap`` and the PD overlap loops, which
``_dispatch_event_loop_once`` starts only under ``scheduler.enable_overlap``.
A registration whose algorithm never runs with overlap scheduling
(``supports_overlap=False``) never reaches that read.

This reader finds such helpers by the calls between the scheduler side's
functions (``managers/``, ``disaggregation/``): an edge for each
``<scheduler>.name(...)`` (``self`` in a scheduler class, a local or
parameter bound to the scheduler) and each call of a module-level function
by name, tagged with the branch its own conditions put it on. A function's
branches are the union of its callers' (an edge's own branch where it has
one); a function nobody on that side calls is a root, on both branches.
Functions are keyed by their bare name, so that two classes' methods of one
name merge: that can only widen a function's branches, never narrow them.

The same graph says which built-in algorithms never run a helper: each edge
also carries who its conditions skip (``Use.skipped_by``: a negated
predicate, or a predicate that names some algorithms, so that every other
one skips it: 0.5.13 calls ``_resolve_spec_v2_tokens`` only under
``batch.is_spec_v2``, which is ``supports_spec_v2()``), and a function is
skipped by what every path from a root to it skips. Only tests that read
the algorithm object or a batch are taken apart for it. The server flags a
function sits behind are folded the same way (``Use.flags``: 0.5.23's
``_dispatch_event_loop_once`` starts the PD prefill loops only under
``disaggregation_mode == DisaggregationMode.PREFILL``, so a helper only they
call is behind ``--disaggregation-mode prefill``); only tests that may read
an option (:meth:`ServerOptions.mentioned`) are taken apart for them.

A function counts as reached from elsewhere (a root) wherever its name is
used other than in a call the graph recorded: passed as a callback
(``run_event_loop_supervisor(scheduler, _dispatch_event_loop_once)``), looked
up with ``getattr``, or named in a file outside the scheduler side. A wrong
"one branch only" would drop a requirement; a wrong "both" keeps it.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from spec_protocols.gate._contract._extract._classify import Skips
from spec_protocols.gate._contract._extract._facts import Conditions, Facts, is_algorithm, is_batch
from spec_protocols.gate._contract._extract._receivers import is_scheduler
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._scheduler import SCHEDULER_SIDE, is_worker_class
from spec_protocols.gate._contract._extract._syntax import exits, functions
from spec_protocols.gate._contract._extract._tree import ReleaseTree
from spec_protocols.gate._contract._release_contract import OVERLAP, SYNCHRONOUS, ServerFlag

__all__ = ["SchedulerPaths", "scheduler_paths", "single_branch_functions"]

_BOTH = frozenset({OVERLAP, SYNCHRONOUS})
Flags = frozenset[ServerFlag]
_SCHEDULER = Roots(scheduler_self=True)
_FUNCTION = Roots(scheduler_self=False)


@dataclass
class _Graph:
    """Calls between the scheduler side's functions, by bare name."""

    #: callee -> (caller, where the call's own conditions put it: its branch
    #: ("" for none), who they skip, the server flags they hold behind).
    callers: defaultdict[str, list[tuple[str, _Where]]] = field(default_factory=lambda: defaultdict(list))
    #: Every function of the scheduler side (bare names).
    defined: set[str] = field(default_factory=set[str])
    #: Names used other than as a recorded call (callbacks, getattr, ...): roots.
    escaped: set[str] = field(default_factory=set[str])
    #: Function node (its id) -> whether its text names the overlap field.
    overlap_named: dict[int, bool] = field(default_factory=dict[int, bool])


@dataclass(frozen=True)
class SchedulerPaths:
    """What the scheduler side's call graph says of its functions (bare names)."""

    #: The one branch (``overlap`` / ``synchronous``) a function runs on;
    #: functions on both (or reached from outside) are absent.
    branch: dict[str, str]
    #: Who never runs a function (``Use.skipped_by`` entries); functions no
    #: built-in algorithm skips are absent.
    skipped_by: dict[str, Skips]
    #: The server flags every path from a root to a function passes behind
    #: (``Use.flags``: the PD prefill loops' helpers, behind
    #: ``disaggregation_mode == PREFILL``); functions behind none are absent.
    flags: dict[str, Flags] = field(default_factory=dict[str, Flags])


def single_branch_functions(tree: ReleaseTree, wanted: Iterable[str] | None = None) -> dict[str, str]:
    """Bare function name -> the one branch (``overlap`` / ``synchronous``)
    on which the scheduler side of ``tree`` runs it; functions on both
    branches (or reached from outside) are absent."""
    return scheduler_paths(tree, wanted).branch


def scheduler_paths(tree: ReleaseTree, wanted: Iterable[str] | None = None) -> SchedulerPaths:
    """The branch each function of the scheduler side of ``tree`` runs on,
    and who skips it (``wanted``: only these names are asked about). A worker
    class's methods are not the scheduler's (:func:`is_worker_class`) and are
    not walked."""
    graph = _Graph()
    folders = SCHEDULER_SIDE
    modules = [m for folder in folders for path in tree.files_under(folder) if (m := tree.module_at(path)) is not None]
    conditions = Conditions(tree)
    for module in modules:
        for node in module.run:
            if isinstance(node, ast.ClassDef) and not is_worker_class(node):
                for func in functions(node.body):
                    _walk(graph, conditions, Scope(module, node, func, f"{node.name}.{func.name}", _SCHEDULER))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                _walk(graph, conditions, Scope(module, None, node, node.name, _FUNCTION))
    reach = _reach(graph)
    asked = None if wanted is None else set(wanted)
    single = {
        name: next(iter(branches))
        for name, branches in reach.items()
        if len(branches) == 1 and (asked is None or name in asked)
    }
    skipped = {name: s for name, s in _skipped(graph, _who_skips).items() if s and (asked is None or name in asked)}
    flagged = {name: s for name, s in _skipped(graph, _flags_behind).items() if s and (asked is None or name in asked)}
    outside = _named_outside(tree, folders, {*single, *skipped, *flagged})
    return SchedulerPaths(
        {name: branch for name, branch in single.items() if name not in outside},
        {name: cast("Skips", s) for name, s in skipped.items() if name not in outside},
        {name: cast("Flags", s) for name, s in flagged.items() if name not in outside},
    )


def _walk(graph: _Graph, conditions: Conditions, scope: Scope) -> None:
    func = scope.func
    assert func is not None
    graph.defined.add(func.name)
    _block(graph, conditions, scope, func.body, _Where(), func.name, set())


@dataclass(frozen=True)
class _Where:
    """Where a block runs: its branch ("" for both), who skips it, the server flags it is behind."""

    branch: str = ""
    skips: Skips = frozenset()
    flags: Flags = frozenset()

    def split(self, graph: _Graph, conditions: Conditions, scope: Scope, test: ast.expr) -> tuple[_Where, _Where]:
        """Where a block runs when ``test`` holds, and where when it does not.

        A test is taken apart (the costly part) only for what it may decide:
        a branch, where the function names the overlap field at all; who
        skips, where it reads the algorithm object or a batch; a server flag,
        where it may read an option. Elsewhere it decides nothing, which
        keeps the block where its caller is (never narrower than the truth)."""
        branches = not self.branch and _names_overlap(graph, scope)
        skips = _reads_skipper(test, scope)
        flags = conditions.options.mentioned(test, scope)

        def where(polarity: bool) -> _Where:
            facts: Facts = conditions.facts_of(test, polarity, scope) if branches or skips or flags else ()
            found = {f.branch for f in facts if f.kind == "branch"} if branches else set[str]()
            return _Where(
                self.branch or (found.pop() if len(found) == 1 else ""),
                self.skips | _skipping(facts) if skips else self.skips,
                self.flags | frozenset(f.flag for f in facts if f.flag is not None) if flags else self.flags,
            )

        return where(True), where(False)


def _block(
    graph: _Graph, conditions: Conditions, scope: Scope, body: Iterable[ast.stmt], where: _Where, caller: str, calls: set[int]
) -> None:
    """Record the calls of ``body``, made ``where``."""
    for stmt in body:
        if isinstance(stmt, (ast.If, ast.While)):
            _calls_in(graph, scope, stmt.test, where, caller, calls)
            holds, otherwise = where.split(graph, conditions, scope, stmt.test)
            _block(graph, conditions, scope, stmt.body, holds, caller, calls)
            _block(graph, conditions, scope, stmt.orelse, otherwise, caller, calls)
            if isinstance(stmt, ast.If) and exits(stmt.body) and not stmt.orelse:
                where = otherwise  # `if not self.enable_overlap: return`: the rest runs on the other branch
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A nested function runs when it is called, under its enclosing function's conditions, not its def's.
            _block(graph, conditions, scope, stmt.body, _Where(), caller, calls)
        elif isinstance(stmt, ast.ClassDef):
            continue
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    _calls_in(graph, scope, child, where, caller, calls)
                elif isinstance(child, ast.stmt):
                    _block(graph, conditions, scope, [child], where, caller, calls)
                elif isinstance(child, (ast.ExceptHandler, ast.match_case)):  # their bodies run here
                    _block(graph, conditions, scope, child.body, where, caller, calls)
                elif isinstance(child, ast.withitem):
                    _calls_in(graph, scope, child.context_expr, where, caller, calls)


def _reads_skipper(test: ast.expr, scope: Scope) -> bool:
    """Whether ``test`` reads the algorithm object or a batch: what may say who skips a block."""
    return any(
        isinstance(node, ast.Attribute) and (is_algorithm(node.value, scope) or is_batch(node.value, scope))
        for node in ast.walk(test)
    )


def _skipping(facts: Facts) -> Skips:
    """Who the facts of a test skip: the algorithms they exclude or select, with their branch."""
    return frozenset((f.algorithms, f.branch) for f in facts if f.kind in ("excludes", "algorithm") and f.algorithms)


def _names_overlap(graph: _Graph, scope: Scope) -> bool:
    """Whether the function's text names the overlap field (read once per function, per run)."""
    assert scope.func is not None
    key = id(scope.func)  # the release tree holds every node for the whole run: an id names one node
    if key not in graph.overlap_named:
        graph.overlap_named[key] = _OVERLAP_FIELD in scope.module.text_of(scope.func)
    return graph.overlap_named[key]


_OVERLAP_FIELD = "enable_overlap"


def _scheduler_receiver(value: ast.expr, scope: Scope) -> bool:
    """``self`` (in a scheduler class), ``scheduler``, ``x.scheduler``: the receivers
    named so. A call on anything else (a local bound to the scheduler) is not
    an edge, so its name escapes the graph: both branches, never narrower."""
    if isinstance(value, ast.Name) and value.id in ("self", "scheduler"):
        return is_scheduler(value, scope)
    return isinstance(value, ast.Attribute) and value.attr == "scheduler"


def _who_skips(where: _Where) -> frozenset[object]:
    return frozenset[object](where.skips)


def _flags_behind(where: _Where) -> frozenset[object]:
    return frozenset[object](where.flags)


def _calls_in(graph: _Graph, scope: Scope, expr: ast.expr, where: _Where, caller: str, calls: set[int]) -> None:
    """Record ``expr``'s calls of scheduler functions as edges, and every other
    use of a name (a callback, a ``getattr`` string) as an escape. ``ast.walk``
    meets a call before its callee's node, so a callee is known as one."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and _scheduler_receiver(func.value, scope):
                graph.callers[func.attr].append((caller, where))
                calls.add(id(func))
            elif isinstance(func, ast.Name):
                graph.callers[func.id].append((caller, where))
                calls.add(id(func))
        elif isinstance(node, ast.Attribute) and id(node) not in calls:
            graph.escaped.add(node.attr)
        elif isinstance(node, ast.Name) and id(node) not in calls and isinstance(node.ctx, ast.Load):
            graph.escaped.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            graph.escaped.add(node.value)


def _reach(graph: _Graph) -> dict[str, frozenset[str]]:
    """Each defined function's branches: a fixed point over the call edges from the roots."""
    reach: dict[str, frozenset[str]] = {}
    for name in graph.defined:
        if name in graph.escaped or not graph.callers.get(name):
            reach[name] = _BOTH
    changed = True
    while changed:
        changed = False
        for callee, edges in graph.callers.items():
            if callee not in graph.defined:
                continue
            found = set(reach.get(callee, frozenset()))
            for caller, where in edges:
                found |= {where.branch} if where.branch else reach.get(caller, frozenset())
            if frozenset(found) != reach.get(callee, frozenset()):
                reach[callee] = frozenset(found)
                changed = True
    return reach


def _skipped(graph: _Graph, which: Callable[[_Where], frozenset[object]]) -> dict[str, frozenset[object]]:
    """What every path from a root to each defined function passes, as
    ``which`` reads an edge: who skips it (``_Where.skips``) or the server
    flags it is behind (``_Where.flags``); a root: nothing. A fixed point
    from the roots down, each function's set only shrinking as more paths
    reach it."""
    skipped: dict[str, frozenset[object]] = {
        name: frozenset() for name in graph.defined if name in graph.escaped or not graph.callers.get(name)
    }
    changed = True
    while changed:
        changed = False
        for callee, edges in graph.callers.items():
            if callee not in graph.defined or callee in skipped and not skipped[callee]:
                continue
            paths = [which(where) | skipped[caller] for caller, where in edges if caller in skipped]
            if not paths:
                continue
            found = skipped.get(callee, paths[0])
            for path in paths:
                found &= path
            if skipped.get(callee) != found:
                skipped[callee] = found
                changed = True
    return skipped


def _named_outside(tree: ReleaseTree, folders: Sequence[str], names: Iterable[str]) -> set[str]:
    """Those of ``names`` that some file outside ``folders`` names (a caller the graph does not see)."""
    sought = sorted(names)
    if not sought:
        return set()
    inside = {p for folder in folders for p in tree.files_under(folder)}
    found: set[str] = set()
    for path in tree.files_under(""):
        if path in inside:
            continue
        text = tree.text(path)
        if text is None:
            continue
        # A substring test first (fast); the word boundary only where it hits.
        for name in sought:
            if name not in found and name in text and re.search(rf"\b{re.escape(name)}\b", text):
                found.add(name)
    return found

