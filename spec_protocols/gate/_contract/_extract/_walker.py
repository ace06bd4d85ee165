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
"""

from __future__ import annotations

import ast
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
        self.calls: list[RecordedCall] = []
        self.registry_calls: list[RecordedCall] = []
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
        self._body(scope.func.body, scope, facts)

    def walk_class(self, module: Module, cls: ast.ClassDef, roots: Roots, facts: Facts = ()) -> None:
        for func in functions(cls.body):
            scope = Scope(module, cls, func, f"{cls.name}.{func.name}", roots)
            self.walk_function(scope, facts)

    # ---------------------------------------------------------------- statements

    def _body(self, body: Sequence[ast.stmt], scope: Scope, facts: Facts) -> None:
        current = facts
        for statement in body:
            self._statement(statement, scope, current)
            if isinstance(statement, ast.If) and not statement.orelse and exits(statement.body):
                current = current + self.conditions.facts_of(statement.test, False, scope)
            elif isinstance(statement, ast.Assert):
                current = current + self.conditions.facts_of(statement.test, True, scope)

    def _statement(self, node: ast.stmt, scope: Scope, facts: Facts) -> None:
        if isinstance(node, (ast.If, ast.While)):
            self._expr(node.test, scope, facts)
            self._body(node.body, scope, facts + self.conditions.facts_of(node.test, True, scope))
            self._body(node.orelse, scope, facts + self.conditions.facts_of(node.test, False, scope))
        elif isinstance(node, ast.Match):
            self._expr(node.subject, scope, facts)
            for case in node.cases:
                if case.guard is not None:
                    self._expr(case.guard, scope, facts)
                self._body(case.body, scope, facts)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)):
            self._heads(node, scope, facts)
            for block in blocks(node):
                self._body(block, scope, facts)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                self._expr(decorator, scope, facts)
            self.dicts.forget(node)
            self._body(node.body, scope.child(node), facts)
        elif isinstance(node, ast.ClassDef):
            return
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assignment(node, scope, facts)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._expr(child, scope, facts)

    def _heads(self, node: ast.stmt, scope: Scope, facts: Facts) -> None:
        """What a loop or ``with`` evaluates before its body: ``for x in it``, ``with c as x``."""
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._expr(node.iter, scope, facts)
            self._target(node.target, scope, facts)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self._expr(item.context_expr, scope, facts)
                if item.optional_vars is not None:
                    self._target(item.optional_vars, scope, facts)

    def _assignment(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: Scope, facts: Facts) -> None:
        if isinstance(node, ast.Assign):
            self._expr(node.value, scope, facts)
            for target in node.targets:
                self._target(target, scope, facts, node.value)
            self.dicts.assigned(node.targets, node.value, scope, facts)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._expr(node.value, scope, facts)
                self.dicts.assigned([node.target], node.value, scope, facts)
            self._target(node.target, scope, facts)
        else:
            self._expr(node.value, scope, facts)
            self._target(node.target, scope, facts)

    def _target(self, target: ast.expr, scope: Scope, facts: Facts, value: ast.expr | None = None) -> None:
        """``value``: what is assigned to ``target`` itself (``d["k"] = value``), when known."""
        if isinstance(target, ast.Attribute):
            held = receiver(target.value, scope)
            if held is not None:
                self._use(target.attr, held, "write", target, scope, facts)
            self._expr(target.value, scope, facts)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element, scope, facts)
        elif isinstance(target, ast.Starred):
            self._target(target.value, scope, facts)
        elif isinstance(target, ast.Subscript):
            self._expr(target.value, scope, facts)
            self._expr(target.slice, scope, facts)
            key = string(target.slice)
            if isinstance(target.value, ast.Name) and key is not None:
                self.dicts.add(scope, target.value.id, key, facts, value)

    # ---------------------------------------------------------------- expressions

    def _expr(self, node: ast.expr, scope: Scope, facts: Facts) -> None:
        if isinstance(node, ast.BoolOp):
            current = facts
            for value in node.values:
                self._expr(value, scope, current)
                current = current + self.conditions.facts_of(value, isinstance(node.op, ast.And), scope)
        elif isinstance(node, ast.IfExp):
            self._expr(node.test, scope, facts)
            self._expr(node.body, scope, facts + self.conditions.facts_of(node.test, True, scope))
            self._expr(node.orelse, scope, facts + self.conditions.facts_of(node.test, False, scope))
        elif isinstance(node, ast.Call):
            self._call(node, scope, facts)
        elif isinstance(node, ast.Attribute):
            held = receiver(node.value, scope)
            if held is not None:
                self._use(node.attr, held, "read", node, scope, facts)
            self._expr(node.value, scope, facts)
        elif isinstance(node, ast.Lambda):
            self._expr(node.body, scope, facts)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._expr(child, scope, facts)
                elif isinstance(child, ast.comprehension):
                    self._expr(child.iter, scope, facts)
                    for condition in child.ifs:
                        self._expr(condition, scope, facts)
                elif isinstance(child, ast.keyword):
                    self._expr(child.value, scope, facts)

    def _call(self, node: ast.Call, scope: Scope, facts: Facts) -> None:
        func = node.func
        handled_func = False
        if isinstance(func, ast.Name) and func.id in _REFLECTION and len(node.args) >= 2:
            self._reflective_use(node, func.id, scope, facts)
        elif isinstance(func, ast.Attribute):
            handled_func = self._member_call(node, func, scope, facts)
        self.dicts.updated(node, scope, facts)
        if not handled_func:
            self._expr(func, scope, facts)
        for argument in node.args:
            self._expr(argument, scope, facts)
        for keyword in node.keywords:
            self._expr(keyword.value, scope, facts)
        self._maybe_record_call(node, scope, facts)
        self.follower.follow(node, scope, facts)

    def _reflective_use(self, node: ast.Call, builtin: str, scope: Scope, facts: Facts) -> None:
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
            self._use(member, held, kind, node, scope, facts, via=via)
            if via != "setattr":
                self.lookups.append(Lookup(node, scope, facts, held, member, via))

    def _member_call(self, node: ast.Call, func: ast.Attribute, scope: Scope, facts: Facts) -> bool:
        """A member called on a receiver: a use with the call's shape. Whether it was one."""
        held = receiver(func.value, scope)
        if held is None:
            return False
        positional, keywords, conditional = self.dicts.call_shape(node, scope, facts)
        never = tuple(k for k in self.dicts.never_none(node, scope) if k in (*keywords, *conditional))
        self._use(
            func.attr, held, "call", func, scope, facts,
            positional=positional, keywords=keywords, conditional=conditional, never_none=never,
        )
        self._expr(func.value, scope, facts)
        return True

    def _use(
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
    ) -> None:
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
            )
        )

    # ---------------------------------------------------------------- the calls a reader wants

    def _maybe_record_call(self, call: ast.Call, scope: Scope, facts: Facts) -> None:
        func = call.func
        if isinstance(func, ast.Attribute):
            self._maybe_record_registry_call(call, func, scope, facts)
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

    def _maybe_record_registry_call(self, call: ast.Call, func: ast.Attribute, scope: Scope, facts: Facts) -> None:
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
