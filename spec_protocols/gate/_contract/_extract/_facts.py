"""Facts: what holds where a use runs, taken apart into the kinds classification reads.

The conditions are those that hold where the use runs: ``if`` / ``elif`` /
``while`` tests, the operands before it in ``and`` / ``or``, conditional
expressions, and early exits (``if not c: return`` makes ``c`` hold below
it), each taken apart through ``not`` / ``and`` / ``or``. Each becomes a
:class:`Fact` of one kind:

- ``nonspec``: the server's algorithm is none (``self.spec_algorithm.is_none()``,
  ``not ...is_some()``, ``speculative_algorithm is None``; not a batch's
  ``batch.spec_algorithm``, which may be none in a speculative server);
- ``algorithm``: a predicate of the algorithm object that names some
  algorithms holds (``spec_algorithm.is_dspark()``,
  ``carries_draft_hidden_states()``, ``algo == X.EAGLE``, ``algo in (...)``,
  ``algo.name in {"EAGLE", "EAGLE3"}``), directly, through a local (``x =
  f(); if x:``), a property, or a function that returns False unless one
  holds (``decide_needs_confidence_relay``). What a predicate means is read
  from the enum (:mod:`~spec_protocols.gate._contract._extract._algorithms`);
  a *negated* one (``if not is_ngram():``, ``has_draft_kv()``) is the
  general path, which every other algorithm takes: no fact;
- ``isinstance``: ``isinstance(<receiver>, ...)`` holds;
- ``hasattr``: ``hasattr(<receiver>, "x")`` holds;
- ``branch``: the scheduler's ``enable_overlap`` holds (``branch`` ``overlap``)
  or does not (``synchronous``): which of ``run_batch``'s branches the use is
  on; like ``other`` for classification (every algorithm reaches both, as
  server options go), kept apart so that a use can be tagged with its branch.
  A batch carries the scheduler's setting (``ScheduleBatch.enable_overlap``),
  so its field counts too, and so does a property of a batch class of
  ``managers/`` read on a batch (``batch.is_spec_v2``: ``self.enable_overlap
  and ...``), taken apart in that class;
- ``excludes``: the use is skipped by the algorithms :attr:`Fact.algorithms`
  names (on :attr:`Fact.branch` only, where one is named): a negated
  predicate (``if not is_ngram():``: skipped by NGRAM) or the negation of a
  predicate together with the overlap field (``elif supports_spec_v2() and
  self.enable_overlap: ... else:``: skipped, on the overlap branch, by the
  algorithms ``supports_spec_v2()`` holds for). Like ``other`` for
  classification (a plugin's algorithm is none of the enum's members); what
  it tells is which built-in workers never reach the use;
- ``flag``: a server option that a server started with the defaults does
  not have (:attr:`Fact.flag`, read in
  :mod:`~spec_protocols.gate._contract._extract._server_options`):
  ``get_memory().enable_hierarchical_cache``, ``self.disaggregation_mode ==
  DisaggregationMode.DECODE``, an ``or`` of such tests. Like ``other`` for
  classification (every algorithm reaches the use once the option is set);
  kept so that a requirement can say which option it lives behind. A test
  the defaults pass (``not server_args.disable_cuda_graph``) is ``other``;
- ``neutral``: only "speculative mode" (``w is not None``, ``if w:``, ``not
  batch.spec_algorithm.is_none()``);
- ``other``: anything else (a server option the gate cannot read a default for).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, TypeGuard, TypeVar

from spec_protocols.gate._contract._extract._algorithms import PredicateMeaning
from spec_protocols.gate._contract._extract._receivers import is_scheduler, names_of, receiver
from spec_protocols.gate._contract._extract._resolve import resolve
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import FunctionNode, decorated, exits, falsy, functions, last_name, returned_value, text
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree
from spec_protocols.gate._contract._extract._server_options import ServerOptions, server_options
from spec_protocols.gate._contract._release_contract import OVERLAP, SYNCHRONOUS, ServerFlag

__all__ = ["MAX_DEPTH", "Conditions", "Fact", "FactKind", "Facts", "is_algorithm", "is_batch"]

FactKind = Literal["nonspec", "algorithm", "isinstance", "hasattr", "branch", "excludes", "flag", "neutral", "other"]
#: The scheduler's field that selects the overlap branch (``self.enable_overlap =
#: not server_args.disable_overlap_schedule``, ``Scheduler.__init__``).
_OVERLAP_FIELD = "enable_overlap"
#: How deep a condition is taken apart through locals, properties and callees
#: (and how many calls deep a receiver is followed).
MAX_DEPTH = 4
#: Names of the algorithm object (``SpeculativeAlgorithm``, an enum).
_ALGO_NAMES = frozenset({"spec_algorithm", "speculative_algorithm", "algo", "algorithm"})
_E = TypeVar("_E", bound=ast.expr)


@dataclass(frozen=True, slots=True)
class Fact:
    kind: FactKind
    #: The condition, in words (source text).
    text: str
    #: Which condition this is (the AST node and its polarity): a key of a
    #: ``**kwargs`` dict is conditional when its facts are not the call's.
    origin: tuple[int, bool]
    receiver: str = ""
    member: str = ""
    #: For a ``branch`` fact: ``overlap`` or ``synchronous``; for an
    #: ``excludes`` fact, the branch it skips the use on (``""``: both).
    branch: str = ""
    #: For an ``excludes`` fact, and an ``algorithm`` fact from a predicate of
    #: the algorithm object: the enum members (``EAGLE``, ``NGRAM``) that skip the use.
    algorithms: tuple[str, ...] = ()
    #: For a ``flag`` fact: the option and the settings that make it hold.
    flag: ServerFlag | None = None


Facts = tuple[Fact, ...]


class Conditions:
    """Takes conditions apart into facts (one per walker: it remembers what
    the functions it looked into imply).

    What each kind of expression tells is one function of this module,
    dispatched on the expression's class (:func:`_facts`): adding a kind is
    adding a function."""

    def __init__(self, tree: ReleaseTree) -> None:
        self.tree = tree
        self._implies: dict[int, Fact | None] = {}
        self._batch_properties: dict[str, tuple[Scope, ast.expr]] | None = None

    @property
    def options(self) -> ServerOptions:
        """The release's server options (read once per tree)."""
        return server_options(self.tree)

    def flag_fact(self, expr: ast.expr, polarity: bool, scope: Scope) -> Facts | None:
        """``expr`` being ``polarity`` as a ``flag`` fact, if it is one."""
        flag = self.options.flag(expr, polarity, scope, self.tree)
        return None if flag is None else (Fact("flag", flag.text, (id(expr), polarity), flag=flag),)

    def facts_of(self, expr: ast.expr, polarity: bool, scope: Scope, depth: int = 0) -> Facts:
        """What ``expr`` being ``polarity`` tells, taken apart through not/and/or."""
        if depth > MAX_DEPTH:
            return _other(expr, polarity)
        return _facts(expr, self, polarity, scope, depth)

    def batch_property(self, name: str) -> tuple[Scope, ast.expr] | None:
        """The property ``name`` of the batch classes of ``managers/`` (a class
        whose name says ``Batch``): its scope and the expression it returns,
        when exactly one such property returns in one statement."""
        if self._batch_properties is None:
            found: dict[str, list[tuple[Scope, ast.expr]]] = {}
            pattern = re.compile(r"@property")
            for module in self.tree.modules_among(self.tree.files_under("managers"), pattern):
                for cls in (n for n in module.run if isinstance(n, ast.ClassDef) and "batch" in n.name.lower()):
                    for func in functions(cls.body):
                        returned = returned_value(func)
                        if returned is not None and decorated(func, "property"):
                            scope = Scope(module, cls, func, f"{cls.name}.{func.name}", Roots())
                            found.setdefault(func.name, []).append((scope, returned))
            self._batch_properties = {n: v[0] for n, v in found.items() if len(v) == 1}
        return self._batch_properties.get(name)

    def implied_by_callee(self, call: ast.Call, scope: Scope, depth: int) -> Fact | None:
        """When ``call`` calls a function of the release that returns False
        unless an algorithm predicate holds: that predicate (a fact)."""
        resolved = resolve(self.tree, call.func, scope)
        if resolved is None:
            return None
        module, node, _owner = resolved
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        return self.implied_by(module, node, depth)

    def implied_by(self, module: Module, node: FunctionNode, depth: int) -> Fact | None:
        """The algorithm predicate without which ``node`` returns False, if any."""
        key = id(node)
        if key in self._implies:
            return self._implies[key]
        self._implies[key] = None  # cycles
        inner = Scope(module, None, node, node.name, Roots())
        found: Fact | None = None
        returns = 0
        for returned, holds in self._returns(node.body, (), inner, depth + 1):
            if returned.value is None or falsy(returned.value):
                continue
            returns += 1
            holds = holds + self.facts_of(returned.value, True, inner, depth + 1)
            algorithm = next((f for f in holds if f.kind == "algorithm"), None)
            if algorithm is None:
                return None  # it can return something true for every algorithm
            found = found or algorithm
        if returns and found is not None:
            result = Fact("algorithm", f"is False unless {found.text} ({module.rel} {node.name})", found.origin)
            self._implies[key] = result
            return result
        return None

    def _returns(self, body: list[ast.stmt], facts: Facts, scope: Scope, depth: int) -> list[tuple[ast.Return, Facts]]:
        """Every ``return`` of a body with what holds where it runs."""
        found: list[tuple[ast.Return, Facts]] = []
        current = facts
        for statement in body:
            if isinstance(statement, ast.Return):
                found.append((statement, current))
            elif isinstance(statement, ast.If):
                found += self._returns(statement.body, current + self.facts_of(statement.test, True, scope, depth), scope, depth)
                otherwise = current + self.facts_of(statement.test, False, scope, depth)
                found += self._returns(statement.orelse, otherwise, scope, depth)
                if not statement.orelse and exits(statement.body):
                    current = otherwise
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)):
                for field_name in ("body", "orelse", "finalbody"):
                    found += self._returns(getattr(statement, field_name, []), current, scope, depth)
                for handler in getattr(statement, "handlers", []):
                    found += self._returns(handler.body, current, scope, depth)
        return found


# -- what each kind of expression tells: Conditions.facts_of for that kind ----------------


def _words(expr: ast.expr, polarity: bool) -> str:
    """The condition, in words."""
    return text(expr) if polarity else f"not ({text(expr)})"


def _other(expr: ast.expr, polarity: bool) -> Facts:
    return (Fact("other", _words(expr, polarity), (id(expr), polarity)),)


def _speculative_or(
    tells: Callable[[_E, Conditions, bool, Scope, int], Facts | None],
    expr: _E, conditions: Conditions, polarity: bool, scope: Scope, depth: int,
) -> Facts:
    """Speculative mode when ``expr`` is a receiver or the scheduler (``if
    self.draft_worker:``); else what ``tells`` finds (None: ``other``)."""
    if receiver(expr, scope) is not None or is_scheduler(expr, scope):
        return (Fact("neutral", _words(expr, polarity), (id(expr), polarity)),)
    found = tells(expr, conditions, polarity, scope, depth)
    return _other(expr, polarity) if found is None else found


def _nothing(expr: ast.expr, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts | None:
    """What an expression tells by its kind alone when no kind's function reads it: nothing."""
    return None


@functools.singledispatch
def _facts(expr: ast.expr, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """Any other expression: speculative mode when it is a receiver or the scheduler, else ``other``."""
    return _speculative_or(_nothing, expr, conditions, polarity, scope, depth)


@_facts.register
def _unary(expr: ast.UnaryOp, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """``not c``: ``c`` with the other polarity."""
    if isinstance(expr.op, ast.Not):
        return conditions.facts_of(expr.operand, not polarity, scope, depth)
    return _speculative_or(_nothing, expr, conditions, polarity, scope, depth)


@_facts.register
def _bool_op(expr: ast.BoolOp, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """``a and b`` true / ``a or b`` false: every operand is; the other way
    round, an ``excludes`` fact where the operands are one algorithm predicate
    and at most the overlap field (:func:`_excluding`), else ``other``."""
    if isinstance(expr.op, ast.And) != polarity:
        return _excluding(expr, conditions, polarity, scope, depth) or _any_flag(expr, conditions, polarity, scope, depth) or _other(expr, polarity)
    collected: Facts = ()
    for value in expr.values:
        collected += conditions.facts_of(value, polarity, scope, depth)
    return collected


def _excluding(expr: ast.BoolOp, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """``not (p() and self.enable_overlap)`` (or ``not p() or not
    self.enable_overlap``): the use is skipped exactly when every operand
    holds the other way, so by the algorithms for which ``p()`` answers so,
    on the branch the field names. Empty unless the operands are one
    predicate of the algorithm object and at most one overlap field."""
    skipping = isinstance(expr.op, ast.And)  # the operands' polarity that skips the use
    predicate: tuple[str, bool] | None = None
    branch = ""
    for value in expr.values:
        found = _predicate_call(value, skipping, scope)
        if found is not None and predicate is None:
            predicate = found
            continue
        facts = conditions.facts_of(value, skipping, scope, depth)
        if len(facts) == 1 and facts[0].kind == "branch" and not branch:
            branch = facts[0].branch
            continue
        return ()
    if predicate is None or conditions.tree.algorithms.meaning(predicate[0]) in ("some", "none"):
        return ()  # no predicate, or one that only tells speculative mode apart
    skipped = conditions.tree.algorithms.answering(*predicate)
    return (Fact("excludes", _words(expr, polarity), (id(expr), polarity), branch=branch, algorithms=skipped),) if skipped else ()


def _any_flag(expr: ast.BoolOp, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """``a or b`` true (``not (a and b)``) where each operand is a server
    flag: one ``flag`` fact, any of whose settings makes it hold
    (``get_memory().enable_hierarchical_cache or ... == "host_pool"``).
    Empty unless every operand is one flag."""
    settings: list[tuple[str, str]] = []
    decided: list[str] = []
    for value in expr.values:
        facts = conditions.facts_of(value, polarity, scope, depth)
        if len(facts) != 1 or facts[0].flag is None:
            return ()
        settings.extend(facts[0].flag.settings)
        decided.extend(facts[0].flag.decided_at_start)
    flag = ServerFlag(_words(expr, polarity), tuple(dict.fromkeys(settings)), tuple(dict.fromkeys(decided)))
    return (Fact("flag", flag.text, (id(expr), polarity), flag=flag),)


def _predicate_call(expr: ast.expr, polarity: bool, scope: Scope) -> tuple[str, bool] | None:
    """``<algorithm>.p()`` (under any number of ``not``) being ``polarity``: ``(p, the answer)``."""
    while isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        expr, polarity = expr.operand, not polarity
    if isinstance(expr, ast.Call) and not expr.args and not expr.keywords and isinstance(expr.func, ast.Attribute):
        if is_algorithm(expr.func.value, scope):
            return expr.func.attr, polarity
    return None


@_facts.register
def _named(expr: ast.NamedExpr, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """``(x := c)``: what ``c`` tells."""
    return conditions.facts_of(expr.value, polarity, scope, depth)


@_facts.register
def _compare(expr: ast.Compare, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """One comparison: of the algorithm object (:func:`_compare_facts`), or
    ``w is not None`` (speculative mode)."""
    if len(expr.ops) != 1:
        return _speculative_or(_nothing, expr, conditions, polarity, scope, depth)
    words, origin = _words(expr, polarity), (id(expr), polarity)
    compared = _compare_facts(expr, polarity, scope, words, origin)
    if compared is not None:
        return compared or _other(expr, polarity)
    flagged = conditions.flag_fact(expr, polarity, scope)
    if flagged is not None:
        return flagged
    if isinstance(expr.ops[0], (ast.Is, ast.IsNot)):
        if isinstance(expr.comparators[0], ast.Constant) and expr.comparators[0].value is None:
            return (Fact("neutral", words, origin),)  # `w is not None`: speculative mode
    return _other(expr, polarity)


@_facts.register
def _attribute(expr: ast.Attribute, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """The scheduler's overlap field (a ``branch``), a receiver, or a property of the class."""
    if expr.attr == _OVERLAP_FIELD and (is_scheduler(expr.value, scope) or is_batch(expr.value, scope)):
        return (Fact("branch", _words(expr, polarity), (id(expr), polarity), branch=OVERLAP if polarity else SYNCHRONOUS),)
    flagged = conditions.flag_fact(expr, polarity, scope)
    if flagged is not None:
        return flagged
    return _speculative_or(_property_facts, expr, conditions, polarity, scope, depth)


@_facts.register
def _name(expr: ast.Name, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """A receiver, or a local bound once: what its value tells."""
    return _speculative_or(_local_facts, expr, conditions, polarity, scope, depth)


@_facts.register
def _call(expr: ast.Call, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts:
    """``isinstance`` / ``hasattr`` of a receiver, a predicate of the algorithm
    object, or a function of the release that implies one."""
    return _speculative_or(_call_facts, expr, conditions, polarity, scope, depth)


def _property_facts(expr: ast.Attribute, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts | None:
    """A property of the class: ``if self.uses_relay:`` reads like a call; a
    property of a batch (``batch.is_spec_v2``): what its returned expression
    tells in its own class."""
    if is_batch(expr.value, scope) and not (isinstance(expr.value, ast.Name) and expr.value.id == "self"):
        found = conditions.batch_property(expr.attr)
        return None if found is None else conditions.facts_of(found[1], polarity, found[0], depth + 1) or None
    if not (polarity and isinstance(expr.value, ast.Name) and expr.value.id == "self" and scope.cls is not None):
        return None
    prop = next((f for f in functions(scope.cls.body) if f.name == expr.attr), None)
    if prop is not None and decorated(prop, "property"):
        implied = conditions.implied_by(scope.module, prop, depth)
        if implied is not None:
            return (Fact("algorithm", f"{_words(expr, polarity)}, which {implied.text}", (id(expr), polarity)),)
    return None


def _local_facts(expr: ast.Name, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts | None:
    """A local bound once: what its value tells (``x = f(); if x:``)."""
    bound = scope.binding(expr.id)
    if not bound or len(bound) != 1:
        return None
    inner = conditions.facts_of(bound[0], polarity, scope, depth + 1)
    bound_text = text(bound[0], 80)
    return tuple(
        replace(
            f,
            text=f"{expr.id} = {f.text}" if f.text.startswith(bound_text) else f"{expr.id} (= {bound_text}): {f.text}",
        )
        if f.kind == "algorithm"
        else f
        for f in inner
    )


def _compare_facts(expr: ast.Compare, polarity: bool, scope: Scope, words: str, origin: tuple[int, bool]) -> Facts | None:
    """``algo == X.EAGLE``, ``algo in (...)``, ``algo is None``: like a
    predicate of the algorithm object. None when ``expr`` compares something else."""
    left, right = expr.left, expr.comparators[0]
    if not _compares_algorithm(left, scope):
        left, right = right, left
        if not _compares_algorithm(left, scope):
            return None
    elements = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
    if _is_algorithm_name(left) and not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elements):
        return None  # `algo.name == other.name`: names no algorithm
    if _is_algorithm_name(left):
        left = left.value  # the algorithm object (a batch's or the server's)
    names = _algorithm_names(elements)
    if names is None or not isinstance(expr.ops[0], (ast.Eq, ast.In, ast.Is, ast.NotEq, ast.NotIn, ast.IsNot)):
        return None
    positive = isinstance(expr.ops[0], (ast.Eq, ast.In, ast.Is)) == polarity
    if names == {"NONE"}:
        if not positive:
            return (Fact("neutral", words, origin),)
        return () if _per_batch(left, scope) else (Fact("nonspec", words, origin),)
    return (Fact("algorithm", words, origin),) if positive else ()


def _call_facts(call: ast.Call, conditions: Conditions, polarity: bool, scope: Scope, depth: int) -> Facts | None:
    """What a call tells; None when nothing (``other``)."""
    words, origin = _words(call, polarity), (id(call), polarity)
    func = call.func
    if isinstance(func, ast.Name) and func.id in ("isinstance", "hasattr") and len(call.args) == 2:
        held = receiver(call.args[0], scope)
        if held is None or not polarity:
            return None
        if func.id == "isinstance":
            return (Fact("isinstance", words, origin, receiver=held),)
        return tuple(Fact("hasattr", words, origin, receiver=held, member=name) for name in names_of(call.args[1], scope)) or None
    if isinstance(func, ast.Attribute) and is_algorithm(func.value, scope):
        algorithms = conditions.tree.algorithms
        meaning = algorithms.meaning(func.attr)
        found = _predicate_facts(func, meaning, polarity, scope, words, origin)
        if meaning in ("some", "none") or call.args:
            return found or None
        # Skipped by the algorithms the predicate answers the other way: for
        # the general path (no fact else) an ``excludes`` fact; for a
        # predicate that names some algorithms, its ``algorithm`` fact says so.
        skipped = algorithms.answering(func.attr, not polarity)
        if found:
            return tuple(replace(f, algorithms=skipped) for f in found)
        return (Fact("excludes", words, origin, algorithms=skipped),) if skipped else None
    if polarity:
        implied = conditions.implied_by_callee(call, scope, depth)
        if implied is not None:
            return (Fact("algorithm", f"{words}, which {implied.text}", origin),)
    return None


def _predicate_facts(
    func: ast.Attribute, meaning: PredicateMeaning, polarity: bool, scope: Scope, words: str, origin: tuple[int, bool]
) -> Facts:
    """``<algorithm>.<predicate>()`` being ``polarity``, by what the predicate means."""
    if meaning in ("some", "none"):
        if (meaning == "some") == polarity:
            return (Fact("neutral", words, origin),)  # speculative mode
        if _per_batch(func.value, scope):
            return ()  # a batch without speculation, in a speculative server
        return (Fact("nonspec", words, origin),)
    if (meaning == "positive") == polarity:
        return (Fact("algorithm", words, origin),)
    return ()  # all algorithms but some: the general path (see _call_facts)


# -- the algorithm object ---------------------------------------------------------------


def is_algorithm(expr: ast.expr, scope: Scope, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``expr`` is the algorithm object (``SpeculativeAlgorithm``)."""
    if isinstance(expr, ast.Attribute):
        return expr.attr in _ALGO_NAMES
    if isinstance(expr, ast.Name):
        if expr.id in _ALGO_NAMES or expr.id == "SpeculativeAlgorithm":
            return True
        if expr.id in seen:
            return False
        return any(_mentions_algorithm(v, scope, seen | {expr.id}) for v in scope.binding(expr.id) or ())
    if isinstance(expr, ast.Call):
        return _mentions_algorithm(expr, scope, seen)
    return False


def _mentions_algorithm(value: ast.expr, scope: Scope, seen: frozenset[str]) -> bool:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        # SpeculativeAlgorithm.from_string(...) / x.spec_algorithm
        return is_algorithm(value.func.value, scope, seen)
    return isinstance(value, (ast.Name, ast.Attribute)) and is_algorithm(value, scope, seen)


def _is_algorithm_name(expr: ast.expr) -> TypeGuard[ast.Attribute]:
    """``<something>.name``: an algorithm's name when ``<something>`` is the algorithm object."""
    return isinstance(expr, ast.Attribute) and expr.attr == "name"


def _compares_algorithm(expr: ast.expr, scope: Scope) -> bool:
    """The algorithm object, or its name (``spec_algorithm.name``, compared
    with the names of algorithms: 0.5.5's registry-backed class)."""
    if _is_algorithm_name(expr):
        return is_algorithm(expr.value, scope)
    return is_algorithm(expr, scope)


def _algorithm_names(elements: list[ast.expr]) -> set[str] | None:
    """The algorithms compared with: ``X.EAGLE``, ``"EAGLE"``, ``None`` (``NONE``); None for anything else."""
    names: set[str] = set()
    for element in elements:
        if isinstance(element, ast.Attribute):
            names.add(element.attr.upper())
        elif isinstance(element, ast.Constant) and isinstance(element.value, str):
            names.add(element.value.upper())
        elif isinstance(element, ast.Constant) and element.value is None:
            names.add("NONE")
        else:
            return None
    return names


def is_batch(expr: ast.expr, scope: Scope) -> bool:
    """Whether ``expr`` is a batch: a name or attribute named so
    (``batch``, ``self.cur_batch``), or ``self`` in a batch class."""
    if isinstance(expr, ast.Name) and expr.id == "self":
        return scope.cls is not None and "batch" in scope.cls.name.lower()
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return "batch" in last_name(expr).lower()
    return False


def _per_batch(expr: ast.expr, scope: Scope) -> bool:
    """Whether an algorithm object belongs to a batch (``batch.spec_algorithm``),
    not to the server: a batch may run without speculation in a speculative server."""
    if isinstance(expr, ast.Attribute):
        return "batch" in last_name(expr.value).lower()
    if isinstance(expr, ast.Name):
        bound = scope.binding(expr.id) or ()
        return any(isinstance(v, ast.Attribute) and _per_batch(v, scope) for v in bound)
    return False
