"""The flow walker: statements and expressions of a function, with the facts that hold at each node.

It records every read, call and write of a member of a receiver
(:mod:`~spec_protocols.gate._contract._extract._receivers`) as a
:class:`~spec_protocols.gate._contract._extract._classify.Raw`, with the
facts where it runs (:mod:`~spec_protocols.gate._contract._extract._facts`),
and the calls its reader asked for (the constructor, the draft factory). It is
composed of parts that each keep their own state: the conditions
(:class:`~spec_protocols.gate._contract._extract._facts.Conditions`), the
``**kwargs`` dicts (:class:`~spec_protocols.gate._contract._extract._kwargs.KeywordDicts`)
and the follower into callees (:class:`~spec_protocols.gate._contract._extract._follow.Follower`).

The :class:`Walker` holds what a walk found; what is done at each kind of node
is one function of this module, dispatched on the node's class
(:func:`_statement`, :func:`_expr`, :func:`_target`): adding a kind is adding
a function.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from spec_protocols.gate._contract._extract._classify import Raw, Via
from spec_protocols.gate._contract._extract._facts import Conditions, Facts, is_algorithm
from spec_protocols.gate._contract._extract._follow import Follower
from spec_protocols.gate._contract._extract._kwargs import KeywordDicts
from spec_protocols.gate._contract._extract._receivers import SPEC, WORKER_FIELDS, names_of, receiver
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import assignment_of, exits, functions, parameters, string
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree
from spec_protocols.gate._contract._release_contract import Site, UseKind
from spec_protocols.gate._source import blocks

__all__ = ["Lookup", "RecordedCall", "Walker", "WantedKind"]

#: Which calls a reader wants recorded: ``create_worker``, the call of a local
#: bound to ``...create_worker(...)``; ``name``, a call of the enclosing
#: function's parameter of that name; ``class``, a call of that name;
#: ``registry``, a call of the algorithm object's method of that name (one that
#: builds a worker from the algorithm's registry) assigned to the scheduler's
#: worker field, recorded in ``registry_calls``.
WantedKind = Literal["create_worker", "name", "class", "registry"]
_REFLECTION = ("getattr", "hasattr", "setattr")


@dataclass(slots=True)
class RecordedCall:
    """A call the extractor asked for (the constructor, the draft factory)."""

    node: ast.Call
    scope: Scope
    facts: Facts
    positional: int
    keywords: tuple[str, ...]
    conditional_keywords: tuple[str, ...]
    #: The local the result is bound to, if any.
    bound_to: str | None = None


@dataclass(frozen=True, slots=True)
class Lookup:
    """A ``getattr`` / ``hasattr`` of a member on a receiver, as the walker met
    it: what :mod:`~spec_protocols.gate._contract._extract._hooks` follows the value of."""

    node: ast.Call
    scope: Scope
    facts: Facts
    receiver: str
    member: str
    via: Via


class Walker:
    """Walks functions with the conditions that hold at each node, recording uses."""

    def __init__(self, tree: ReleaseTree) -> None:
        self.tree = tree
        self.raw: list[Raw] = []
        #: The calls made as statements (their node ids): their values are discarded.
        self.discarded: set[int] = set()
        self.calls: list[RecordedCall] = []
        self.registry_calls: list[RecordedCall] = []
        #: For each use whose value sglang uses (a call's result, a read): the
        #: use's key (site, member, receiver, kind), the expression whose value
        #: it is, and where. What is done with it is followed after the walk
        #: (:class:`~spec_protocols.gate._contract._extract._hooks.ValueFlow`).
        self.values: list[tuple[tuple[Site, str, str, str], ast.expr, Scope]] = []
        #: Every getattr / hasattr of a member on a receiver (the hooks' lookups).
        self.lookups: list[Lookup] = []
        self.wanted_call: list[tuple[WantedKind, str]] = []
        #: Further names that make a function worth walking (a wanted call's callee).
        self.tokens: set[str] = set()
        self.conditions = Conditions(tree)
        self.dicts = KeywordDicts(self.conditions)
        self.follower = Follower(tree, self)
        self._patterns: dict[frozenset[str], re.Pattern[str]] = {}

    def want(self, kind: WantedKind, name: str) -> None:
        """Record the calls of ``kind`` (see :data:`WantedKind`); ``name`` makes a function worth walking."""
        self.wanted_call.append((kind, name))
        self.tokens.add(name or kind)

    # ---------------------------------------------------------------- entry points

    def walk_function(self, scope: Scope, facts: Facts = ()) -> None:
        assert scope.func is not None
        # Most functions never mention a worker: a use needs one of these
        # names in the function's text (an alias is bound from one of them).
        tokens = frozenset({*WORKER_FIELDS, "scheduler", *scope.roots.self_attrs, *scope.roots.params, *self.tokens})
        pattern = self._patterns.get(tokens)
        if pattern is None:
            pattern = self._patterns[tokens] = re.compile(r"\b(" + "|".join(sorted(map(re.escape, tokens))) + r")\b")
        if not pattern.search(scope.module.text_of(scope.func)):
            return
        self.dicts.forget(scope.func)
        _body(scope.func.body, self, scope, facts)

    def walk_class(self, module: Module, cls: ast.ClassDef, roots: Roots, facts: Facts = ()) -> None:
        for func in functions(cls.body):
            scope = Scope(module, cls, func, f"{cls.name}.{func.name}", roots)
            self.walk_function(scope, facts)

    # ---------------------------------------------------------------- what a walk records

    def use(
        self,
        member: str,
        held: str,
        kind: UseKind,
        node: ast.expr,
        scope: Scope,
        facts: Facts,
        *,
        via: Via = "",
        positional: int = 0,
        keywords: tuple[str, ...] = (),
        conditional: tuple[str, ...] = (),
        never_none: tuple[str, ...] = (),
        value_used: bool = True,
        value: ast.expr | None = None,
    ) -> None:
        """Record a use of ``member`` on the receiver ``held`` at ``node``,
        where ``facts`` hold; ``value``: the expression whose value the use
        gives sglang (the call, for a call), when sglang uses it."""
        if value is not None and value_used:
            self.values.append(((Site(scope.module.rel, scope.qualname, node.lineno), member, held, kind), value, scope))
        self.raw.append(
            Raw(
                member=member,
                receiver=held,
                kind=kind,
                site=Site(scope.module.rel, scope.qualname, node.lineno),
                col=node.col_offset,
                facts=facts,
                via=via,
                positional=positional,
                keywords=keywords,
                conditional_keywords=conditional,
                never_none=never_none,
                owner=scope.owner,
                value_used=value_used,
            )
        )

    def record_call(self, call: ast.Call, scope: Scope, facts: Facts) -> None:
        """Record ``call`` in :attr:`calls` or :attr:`registry_calls` when a reader wants it (see :meth:`want`)."""
        func = call.func
        if isinstance(func, ast.Attribute):
            self._record_registry_call(call, func, scope, facts)
            return
        if not isinstance(func, ast.Name) or not self._wanted(func.id, scope):
            return
        positional, keywords, conditional = self.dicts.call_shape(call, scope, facts)
        self.calls.append(RecordedCall(call, scope, facts, positional, keywords, conditional, _bound_name(scope, call)))

    def _wanted(self, name: str, scope: Scope) -> bool:
        for kind, wanted in self.wanted_call:
            if kind == "name" and name == wanted and scope.func is not None and wanted in parameters(scope.func):
                return True
            if kind == "create_worker" and scope.bound_to_call_of(name, "create_worker"):
                return True
            if kind == "class" and name == wanted:
                return True
        return False

    def _record_registry_call(self, call: ast.Call, func: ast.Attribute, scope: Scope, facts: Facts) -> None:
        """``self.draft_worker = self.spec_algorithm.create_draft_worker(**kwargs)``:
        a registry method (see :func:`~spec_protocols.gate._contract._extract._constructor_calls.registry_methods`)
        of the algorithm object whose result becomes the scheduler's spec worker. Its keywords are those
        a plugin's worker is constructed with: a key the dict gets only under a
        positive algorithm predicate (``if self.spec_algorithm.name in
        {"EAGLE", "EAGLE3"}:``) is a built-in algorithm's, never a plugin's."""
        methods = {name for kind, name in self.wanted_call if kind == "registry"}
        if func.attr not in methods or not is_algorithm(func.value, scope):
            return
        if not _assigned_to_worker_field(call, scope):
            return
        positional, keywords, conditional = self.dicts.call_shape(call, scope, facts, for_plugin=True)
        self.registry_calls.append(RecordedCall(call, scope, facts, positional, keywords, conditional))


def _bound_name(scope: Scope, call: ast.Call) -> str | None:
    """The local ``call``'s result is assigned to, if any."""
    assignment = assignment_of(scope.func, call) if scope.func is not None else None
    if assignment is not None:
        for target in assignment.targets:
            if isinstance(target, ast.Name):
                return target.id
    return None


def _assigned_to_worker_field(call: ast.Call, scope: Scope) -> bool:
    """Whether ``call``'s result is assigned to the scheduler's spec worker (``self.draft_worker = call``)."""
    assignment = assignment_of(scope.func, call) if scope.func is not None else None
    return assignment is not None and any(isinstance(t, ast.Attribute) and receiver(t, scope) == SPEC for t in assignment.targets)


# -- statements: each is walked where ``facts`` hold, and tells what holds after it ------------


def _body(body: Sequence[ast.stmt], walker: Walker, scope: Scope, facts: Facts) -> None:
    for statement in body:
        facts = _statement(statement, walker, scope, facts)


@functools.singledispatch
def _statement(node: ast.stmt, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    """Any other statement (``return``, ``del``, an expression): its expressions."""
    _expressions(node, walker, scope, facts)
    return facts


@_statement.register
def _expression_statement(node: ast.Expr, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    """A call made as a statement: its value is discarded (``Use.value_used`` false)."""
    if isinstance(node.value, ast.Call):
        walker.discarded.add(id(node.value))
    _expressions(node, walker, scope, facts)
    return facts


def _expressions(node: ast.stmt, walker: Walker, scope: Scope, facts: Facts) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            _expr(child, walker, scope, facts)


@_statement.register
def _if(node: ast.If, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    """Each branch where the test is true or false; after ``if not c: return`` (no ``else``), ``c`` holds."""
    _branches(node, walker, scope, facts)
    if not node.orelse and exits(node.body):
        return facts + walker.conditions.facts_of(node.test, False, scope)
    return facts


@_statement.register
def _while(node: ast.While, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    _branches(node, walker, scope, facts)
    return facts


def _branches(node: ast.If | ast.While, walker: Walker, scope: Scope, facts: Facts) -> None:
    _expr(node.test, walker, scope, facts)
    _body(node.body, walker, scope, facts + walker.conditions.facts_of(node.test, True, scope))
    _body(node.orelse, walker, scope, facts + walker.conditions.facts_of(node.test, False, scope))


@_statement.register
def _assert(node: ast.Assert, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    """Its expressions; after it, its test holds."""
    _expressions(node, walker, scope, facts)
    return facts + walker.conditions.facts_of(node.test, True, scope)


@_statement.register
def _match(node: ast.Match, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    _expr(node.subject, walker, scope, facts)
    for case in node.cases:
        if case.guard is not None:
            _expr(case.guard, walker, scope, facts)
        _body(case.body, walker, scope, facts)
    return facts


@_statement.register
def _for(node: ast.For | ast.AsyncFor, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    _expr(node.iter, walker, scope, facts)
    _target(node.target, walker, scope, facts)
    _blocks(node, walker, scope, facts)
    return facts


@_statement.register
def _with(node: ast.With | ast.AsyncWith, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    for item in node.items:
        _expr(item.context_expr, walker, scope, facts)
        if item.optional_vars is not None:
            _target(item.optional_vars, walker, scope, facts)
    _blocks(node, walker, scope, facts)
    return facts


@_statement.register
def _try(node: ast.Try | ast.TryStar, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    """Its blocks (not the handlers' exception types)."""
    _blocks(node, walker, scope, facts)
    return facts


def _blocks(node: ast.stmt, walker: Walker, scope: Scope, facts: Facts) -> None:
    for block in blocks(node):
        _body(block, walker, scope, facts)


@_statement.register
def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    """Its decorators, then its body as a scope of its own, where the enclosing facts hold."""
    for decorator in node.decorator_list:
        _expr(decorator, walker, scope, facts)
    walker.dicts.forget(node)
    _body(node.body, walker, scope.child(node), facts)
    return facts


@_statement.register
def _class(node: ast.ClassDef, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    """A class defined in the function: not walked."""
    return facts


@_statement.register
def _assign(node: ast.Assign, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    _expr(node.value, walker, scope, facts)
    for target in node.targets:
        _target(target, walker, scope, facts, node.value)
    walker.dicts.assigned(node.targets, node.value, scope, facts)
    return facts


@_statement.register
def _annotated_assign(node: ast.AnnAssign, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    if node.value is not None:
        _expr(node.value, walker, scope, facts)
        walker.dicts.assigned([node.target], node.value, scope, facts)
    _target(node.target, walker, scope, facts)
    return facts


@_statement.register
def _augmented_assign(node: ast.AugAssign, walker: Walker, scope: Scope, facts: Facts) -> Facts:
    _expr(node.value, walker, scope, facts)
    _target(node.target, walker, scope, facts)
    return facts


# -- assignment targets -------------------------------------------------------------------


@functools.singledispatch
def _target(target: ast.expr, walker: Walker, scope: Scope, facts: Facts, value: ast.expr | None = None) -> None:
    """What an assignment to ``target`` writes; ``value``: what is assigned to
    ``target`` itself (``d["k"] = value``), when known. A name writes no member."""


@_target.register
def _attribute_target(target: ast.Attribute, walker: Walker, scope: Scope, facts: Facts, value: ast.expr | None = None) -> None:
    held = receiver(target.value, scope)
    if held is not None:
        walker.use(target.attr, held, "write", target, scope, facts)
    _expr(target.value, walker, scope, facts)


@_target.register
def _unpacked_target(target: ast.Tuple | ast.List, walker: Walker, scope: Scope, facts: Facts, value: ast.expr | None = None) -> None:
    for element in target.elts:
        _target(element, walker, scope, facts)


@_target.register
def _starred_target(target: ast.Starred, walker: Walker, scope: Scope, facts: Facts, value: ast.expr | None = None) -> None:
    _target(target.value, walker, scope, facts)


@_target.register
def _subscript_target(target: ast.Subscript, walker: Walker, scope: Scope, facts: Facts, value: ast.expr | None = None) -> None:
    """``d["k"] = value``: a key of a ``**kwargs`` dict."""
    _expr(target.value, walker, scope, facts)
    _expr(target.slice, walker, scope, facts)
    key = string(target.slice)
    if isinstance(target.value, ast.Name) and key is not None:
        walker.dicts.add(scope, target.value.id, key, facts, value)


# -- expressions --------------------------------------------------------------------------


@functools.singledispatch
def _expr(node: ast.expr, walker: Walker, scope: Scope, facts: Facts) -> None:
    """Any other expression: its subexpressions, and of a comprehension its
    iterables and conditions (its targets are locals)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            _expr(child, walker, scope, facts)
        elif isinstance(child, ast.comprehension):
            _expr(child.iter, walker, scope, facts)
            for condition in child.ifs:
                _expr(condition, walker, scope, facts)


@_expr.register
def _bool_op(node: ast.BoolOp, walker: Walker, scope: Scope, facts: Facts) -> None:
    """Each operand where those before it hold (``and``) or do not (``or``)."""
    current = facts
    for value in node.values:
        _expr(value, walker, scope, current)
        current = current + walker.conditions.facts_of(value, isinstance(node.op, ast.And), scope)


@_expr.register
def _if_exp(node: ast.IfExp, walker: Walker, scope: Scope, facts: Facts) -> None:
    _expr(node.test, walker, scope, facts)
    _expr(node.body, walker, scope, facts + walker.conditions.facts_of(node.test, True, scope))
    _expr(node.orelse, walker, scope, facts + walker.conditions.facts_of(node.test, False, scope))


@_expr.register
def _attribute(node: ast.Attribute, walker: Walker, scope: Scope, facts: Facts) -> None:
    held = receiver(node.value, scope)
    if held is not None:
        walker.use(node.attr, held, "read", node, scope, facts, value=node)
    _expr(node.value, walker, scope, facts)


@_expr.register
def _lambda(node: ast.Lambda, walker: Walker, scope: Scope, facts: Facts) -> None:
    """Its body (not its defaults)."""
    _expr(node.body, walker, scope, facts)


@_expr.register
def _call(node: ast.Call, walker: Walker, scope: Scope, facts: Facts) -> None:
    """A use when it calls a member of a receiver or reflects on one; its
    arguments; recorded when a reader wants it; followed into the callee."""
    func = node.func
    handled_func = False
    if isinstance(func, ast.Name) and func.id in _REFLECTION and len(node.args) >= 2:
        _reflective_use(node, func.id, walker, scope, facts)
    elif isinstance(func, ast.Attribute):
        handled_func = _member_call(node, func, walker, scope, facts)
    walker.dicts.updated(node, scope, facts)
    if not handled_func:
        _expr(func, walker, scope, facts)
    for argument in node.args:
        _expr(argument, walker, scope, facts)
    for keyword in node.keywords:
        _expr(keyword.value, walker, scope, facts)
    walker.record_call(node, scope, facts)
    walker.follower.follow(node, scope, facts)


def _reflective_use(node: ast.Call, builtin: str, walker: Walker, scope: Scope, facts: Facts) -> None:
    """``getattr`` / ``hasattr`` / ``setattr`` on a receiver: a use of each name it can be given."""
    held = receiver(node.args[0], scope)
    if held is None:
        return
    via: Via
    if builtin == "hasattr":
        via = "hasattr"
    elif builtin == "setattr":
        via = "setattr"
    else:
        via = "getattr-default" if len(node.args) >= 3 else "getattr"
    kind: UseKind = "write" if via == "setattr" else "read"
    for member in names_of(node.args[1], scope):
        walker.use(member, held, kind, node, scope, facts, via=via, value=node if via == "getattr" else None)
        if via != "setattr":
            walker.lookups.append(Lookup(node, scope, facts, held, member, via))


def _member_call(node: ast.Call, func: ast.Attribute, walker: Walker, scope: Scope, facts: Facts) -> bool:
    """A member called on a receiver: a use with the call's shape. Whether it was one."""
    held = receiver(func.value, scope)
    if held is None:
        return False
    positional, keywords, conditional = walker.dicts.call_shape(node, scope, facts)
    never = tuple(k for k in walker.dicts.never_none(node, scope) if k in (*keywords, *conditional))
    walker.use(
        func.attr, held, "call", func, scope, facts,
        positional=positional, keywords=keywords, conditional=conditional, never_none=never,
        value_used=id(node) not in walker.discarded,
        value=node,
    )
    _expr(func.value, walker, scope, facts)
    return True
