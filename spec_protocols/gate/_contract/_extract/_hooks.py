"""Hooks: members sglang finds with ``getattr(w, "x", default)`` / ``hasattr(w, "x")``, and what it does with them.

A worker may lack such a member, but one that has it is used as the release
uses it: ``getattr(self.model_worker, "prepare_for_kv_cache_release", None)``
bound to ``prepare_release``, then ``prepare_release(req)``
(``SchedulerBatchResultProcessor._prepare_kv_cache_release``, 0.5.23): a
method of the worker must take the request. ``getattr(self.draft_worker,
"spec_v2_attn_backends", (...,))`` bound to ``attn_backends``, passed to
``decide_needs_cpu_seq_lens``, which iterates its parameter
(``Scheduler.init_overlap``, ``overlap_utils.decide_needs_cpu_seq_lens``): the
member must be iterable, a method is not.

For each lookup the walker met (:class:`~spec_protocols.gate._contract._extract._walker.Lookup`),
the value is followed through the function (never anchored on a name or a
release):

- the lookup's own context: called, iterated (``for``, a comprehension,
  ``tuple(...)``, ``any(...)`` and the other builtins that iterate their
  argument), tested (truth, ``is None``, ``callable(x)``), an attribute of it
  read or written, returned or kept (``value``);
- a local it is bound to (``x = getattr(...)``, ``(x := getattr(...))``): every
  read of that local, each followed in turn;
- a value that flows on (``x or default``, ``a if c else x``): the whole expression;
- an argument of a function of the release (resolved as the flow walker
  resolves calls): the callee's parameter, followed in the callee, up to
  :data:`~spec_protocols.gate._contract._extract._facts.MAX_DEPTH` calls deep;
- for ``hasattr(w, "x")``: each ``w.x`` the same function reads.

A lookup where the server's algorithm is none is dropped, and one under an
algorithm predicate keeps that classification (a plugin's algorithm never
reaches it), as the uses are classified
(:mod:`~spec_protocols.gate._contract._extract._classify`).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from spec_protocols.gate._contract._extract._classify import Raw, branch_of, classify
from spec_protocols.gate._contract._extract._facts import MAX_DEPTH
from spec_protocols.gate._contract._extract._receivers import receiver
from spec_protocols.gate._contract._extract._resolve import resolve
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import FunctionNode, decorated, positional_parameters, text
from spec_protocols.gate._contract._extract._tree import ReleaseTree
from spec_protocols.gate._contract._extract._walker import Lookup
from spec_protocols.gate._contract._release_contract import Hook, HookUse, Site

__all__ = ["ValueFlow", "hooks"]

#: Builtins that iterate an argument (all but ``map`` / ``filter``'s first).
_ITERATING = frozenset(
    {"tuple", "list", "set", "frozenset", "sorted", "any", "all", "sum", "min", "max", "iter", "enumerate", "zip", "map", "filter", "reversed"}
)
#: Builtins that only test their argument: any value will do.
_TESTING = frozenset({"callable", "bool", "isinstance", "id", "repr", "str", "type"})
#: How an operator reads in a use's detail.
_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.MatMult: "@",
}
_ORDER = {"required": 0, "conditional": 1, "private": 2, "guarded": 3, "isinstance": 4, "algorithm": 5}


def hooks(tree: ReleaseTree, lookups: Iterable[Lookup]) -> tuple[Hook, ...]:
    """Every lookup's hook, each lookup once (the least restrictive
    classification where the walk reached it twice), in site order."""
    flow = ValueFlow(tree)
    found: dict[tuple[Site, int, str, str], Hook] = {}
    for lookup in lookups:
        site = Site(lookup.scope.module.rel, lookup.scope.qualname, lookup.node.lineno)
        raw = Raw(lookup.member, lookup.receiver, "read", site, lookup.node.col_offset, lookup.facts, via=lookup.via)
        verdict = classify(raw)
        if verdict is None:
            continue  # the server's algorithm is none there
        key = (site, lookup.node.col_offset, lookup.member, lookup.receiver)
        known = found.get(key)
        if known is not None and _ORDER[known.classification] <= _ORDER[verdict[0]]:
            continue
        has_default = lookup.via == "getattr-default"
        found[key] = Hook(
            member=lookup.member,
            receiver=lookup.receiver,
            lookup=lookup.via,
            default=text(lookup.node.args[2], 80) if has_default else "",
            site=site,
            uses=tuple(dict.fromkeys(flow.lookup_uses(lookup))),
            classification=verdict[0],
            branch=branch_of(lookup.facts),
        )
    return tuple(sorted(found.values(), key=lambda h: (h.site, h.member, h.receiver)))


class ValueFlow:
    """Follows a value through the functions of one release."""

    def __init__(self, tree: ReleaseTree) -> None:
        self.tree = tree
        self._parents: dict[int, dict[int, ast.AST]] = {}

    def parents(self, func: FunctionNode) -> dict[int, ast.AST]:
        key = id(func)
        found = self._parents.get(key)
        if found is None:
            found = self._parents[key] = {id(c): n for n in ast.walk(func) for c in ast.iter_child_nodes(n)}
        return found

    def lookup_uses(self, lookup: Lookup) -> Iterator[HookUse]:
        scope = lookup.scope
        if scope.func is None:
            return
        if lookup.via != "hasattr":
            yield from self.uses(lookup.node, scope, 0, frozenset())
            return
        # hasattr(w, "x"): what the function does with each w.x it reads.
        for node in ast.walk(scope.func):
            if isinstance(node, ast.Attribute) and node.attr == lookup.member and isinstance(node.ctx, ast.Load):
                if receiver(node.value, scope) == lookup.receiver:
                    yield from self.uses(node, scope, 0, frozenset())

    def value_uses(self, node: ast.expr, scope: Scope) -> Iterator[HookUse]:
        """What is done with the value of ``node`` (a member's call or read)."""
        if scope.func is not None:
            yield from self.uses(node, scope, 0, frozenset())

    def uses(self, node: ast.expr, scope: Scope, depth: int, seen: frozenset[tuple[int, str]]) -> Iterator[HookUse]:
        """What is done with the value of ``node`` (an expression of ``scope``'s function)."""
        assert scope.func is not None
        parent = self.parents(scope.func).get(id(node))
        site = Site(scope.module.rel, scope.qualname, node.lineno)
        yield from _used_in(parent, node, _Follow(self, scope, depth, seen, site))

    def reads(self, name: str, scope: Scope, depth: int, seen: frozenset[tuple[int, str]]) -> Iterator[HookUse]:
        """What is done with each read of the local ``name`` in ``scope``'s function
        (nothing where ``seen`` holds it already)."""
        assert scope.func is not None
        key = (id(scope.func), name)
        if key in seen:
            return
        seen = seen | {key}
        for read in ast.walk(scope.func):
            if isinstance(read, ast.Name) and read.id == name and isinstance(read.ctx, ast.Load):
                yield from self.uses(read, scope, depth, seen)


@dataclass(frozen=True, slots=True)
class _Follow:
    """Where a value is followed: its flow, the function it is in (``scope``),
    how many calls deep, the (function, local) pairs already read, and the
    site of the expression whose value it is."""

    flow: ValueFlow
    scope: Scope
    depth: int
    seen: frozenset[tuple[int, str]]
    site: Site

    def on(self, node: ast.expr) -> Iterator[HookUse]:
        """What is done with the value of ``node`` (the whole expression a value flows on as), in the same function."""
        return self.flow.uses(node, self.scope, self.depth, self.seen)


# -- what the parent of a value does with it: one function a kind of parent ----------------


@functools.singledispatch
def _used_in(parent: ast.AST | None, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """Any other parent (a ``return``, a container, a subscript...): the value is kept (``value``)."""
    yield _kept(parent, at.site)


def _kept(parent: ast.AST | None, site: Site) -> HookUse:
    return HookUse("value", site, detail=type(parent).__name__ if parent is not None else "")


@_used_in.register
def _in_call(call: ast.Call, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """Called, tested or iterated by a builtin, or passed to a function."""
    if call.func is node:
        positional = sum(1 for a in call.args if not isinstance(a, ast.Starred))
        keywords = tuple(k.arg for k in call.keywords if k.arg is not None)
        yield HookUse("call", at.site, positional, keywords)
        return
    if isinstance(call.func, ast.Name) and call.func.id in _TESTING:
        yield HookUse("test", at.site, detail=call.func.id)
        return
    if isinstance(call.func, ast.Name) and call.func.id in _ITERATING:
        if not (call.func.id in ("map", "filter") and call.args and call.args[0] is node):
            yield HookUse("iterate", at.site, detail=call.func.id)
            return
    if node in call.args:
        yield from _passed(at, call, call.args.index(node), None)
    else:
        yield HookUse("value", at.site, detail=text(call.func, 60))


@_used_in.register
def _in_keyword(parent: ast.keyword, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """``f(name=value)``: the callee's parameter; ``f(**value)``: kept."""
    assert at.scope.func is not None
    call = at.flow.parents(at.scope.func).get(id(parent))
    if isinstance(call, ast.Call) and parent.arg is not None:
        yield from _passed(at, call, None, parent.arg)
    else:
        yield HookUse("value", at.site, detail="**kwargs")


@_used_in.register
def _in_loop(parent: ast.For | ast.AsyncFor | ast.comprehension, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    if parent.iter is node:
        yield HookUse("iterate", at.site)
    else:
        yield _kept(parent, at.site)


@_used_in.register
def _in_attribute(parent: ast.Attribute, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """An attribute of it read (``.next_draft_input``) or stored (``.copy_done=``)."""
    yield HookUse("attribute", at.site, detail=parent.attr + ("=" if isinstance(parent.ctx, ast.Store) else ""))


@_used_in.register
def _in_operand(parent: ast.BinOp | ast.AugAssign, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """``a + value``, ``runners += value``: an operand of that operator (a
    list's ``+=`` iterates it; a number's ``+`` adds it)."""
    symbol = _OPERATORS.get(type(parent.op), type(parent.op).__name__)
    yield HookUse("operand", at.site, detail=symbol + ("=" if isinstance(parent, ast.AugAssign) else ""))


@_used_in.register
def _in_test(parent: ast.Compare | ast.UnaryOp | ast.If | ast.While | ast.Assert, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    yield HookUse("test", at.site)


@_used_in.register
def _in_if_exp(parent: ast.IfExp, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """The test: tested; a branch: the value flows on as the whole expression's."""
    if parent.test is node:
        yield HookUse("test", at.site)
    else:
        yield from at.on(parent)


@_used_in.register
def _in_bool_op(parent: ast.BoolOp, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """``x or default``: tested (but the last operand), and the value flows on as the whole expression's."""
    if parent.values[-1] is not node:
        yield HookUse("test", at.site)
    yield from at.on(parent)


@_used_in.register
def _in_binding(parent: ast.Assign | ast.AnnAssign | ast.NamedExpr, node: ast.expr, at: _Follow) -> Iterator[HookUse]:
    """``x = value``: every read of ``x`` in the function."""
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    if isinstance(parent, ast.NamedExpr):
        yield from at.on(parent)
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if not names:
        yield HookUse("value", at.site, detail="stored")
    for name in names:
        yield from at.flow.reads(name, at.scope, at.depth, at.seen)


def _passed(at: _Follow, call: ast.Call, index: int | None, keyword: str | None) -> Iterator[HookUse]:
    """An argument of ``call``: the callee's parameter, followed in the callee."""
    tree, depth, site = at.flow.tree, at.depth, at.site
    resolved = resolve(tree, call.func, at.scope) if depth < MAX_DEPTH else None
    callee = resolved[1] if resolved is not None else None
    if resolved is None or not isinstance(callee, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield HookUse("value", site, detail=text(call.func, 60))
        return
    module, _node, owner = resolved
    positional = positional_parameters(callee)
    if owner is not None and not decorated(callee, "staticmethod"):
        positional = positional[1:]  # self / cls
    if keyword is not None:
        name: str | None = keyword
    elif index is not None and index < len(positional) and not any(isinstance(a, ast.Starred) for a in call.args[:index]):
        name = positional[index]
    else:
        name = None
    if name is None:
        yield HookUse("value", site, detail=text(call.func, 60))
        return
    qualname = f"{owner.name}.{callee.name}" if owner is not None else callee.name
    inner = Scope(module, owner, callee, qualname, Roots())
    yield from at.flow.reads(name, inner, depth + 1, at.seen)
