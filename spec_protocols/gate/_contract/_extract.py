"""Read one sglang release's contract from its own source (``ast`` only, never imported).

:func:`extract_contract` walks the scheduler side of a release
(``sglang/srt/managers/`` and ``sglang/srt/disaggregation/``) and records
every read, call and write of a member of the scheduler's speculative worker,
then reads ``BaseSpecWorker``'s defaults, the constructor call and
``build_draft_tp_worker``. Nothing is anchored on a line number or a release:
call sites are found by what they do.

What counts as the spec worker (a *receiver*):

- ``<scheduler>.draft_worker`` and ``<scheduler>.model_worker``, where a
  scheduler is ``self`` in any class of those folders that is not itself a
  worker (the Scheduler, its mixins, the components whose dataclass fields
  ``draft_worker`` / ``model_worker`` are filled from the scheduler),
  ``<anything>.scheduler``, a name ``scheduler``, or a local bound to one of
  these (``sched = self.scheduler``). In speculative mode
  ``self.model_worker = self.draft_worker``, so both are the spec worker.
- a local bound to a receiver, also through ``or`` / a conditional expression
  (``worker = self.draft_worker or self.tp_worker``) or ``:=``;
- a parameter or attribute the worker reaches by a call: a function or class
  of sglang that is passed the worker (``_get_draft_model_runner(self.draft_worker)``,
  ``ExternalCorpusManager(self.draft_worker, ...)`` which keeps it as
  ``self._worker``) is read with that parameter/attribute as a receiver, and
  inherits the conditions of the call site;
- the spec worker's own ``draft_worker`` / ``target_worker`` (``getattr(w,
  "draft_worker", None)``, ``w.draft_worker.x``), recorded with receiver
  ``spec_worker.draft_worker`` / ``spec_worker.target_worker``: the inner
  draft worker's members are not the spec worker's.

How a use is classified (the first rule that applies; see
:mod:`~spec_protocols.gate._contract._model`). The conditions are those that
hold where the use runs: ``if`` / ``elif`` / ``while`` tests, the operands
before it in ``and`` / ``or``, conditional expressions, and early exits
(``if not c: return`` makes ``c`` hold below it), each taken apart through
``not`` / ``and`` / ``or``:

1. *dropped*: the server's algorithm is none (``self.spec_algorithm.is_none()``,
   ``not ...is_some()``, ``speculative_algorithm is None``; not a batch's
   ``batch.spec_algorithm``, which may be none in a speculative server):
   there the scheduler's ``model_worker`` is the plain ``tp_worker`` and
   ``draft_worker`` is None.
2. ``algorithm``: a predicate of the algorithm object that names some
   algorithms holds (``spec_algorithm.is_dspark()``,
   ``carries_draft_hidden_states()``, ``algo == X.EAGLE``, ``algo in (...)``,
   ``algo.name in {"EAGLE", "EAGLE3"}``),
   directly, through a local (``x = f(); if x:``), a property, or a function
   that returns False unless one holds (``decide_needs_confidence_relay``).
   What a predicate means is read from ``SpeculativeAlgorithm`` itself (an
   enum): its body is evaluated for every member, so ``is_some()`` /
   ``is_speculative()`` (true for all) mean "speculative mode", and
   ``has_draft_kv()`` (``not self.is_ngram()``) is a negated one. A predicate
   it cannot read names some algorithms.
   A *negated* predicate (``if not is_ngram():``, ``has_draft_kv()``) does not
   make a use algorithm-specific: it is the general path, which every other
   algorithm takes (the ground truth reads ``_draft_model_runners``'s
   fall-through ``draft_runners`` so).
   Also: a member whose presence a class validates with ``hasattr`` only
   under such a predicate is that algorithm's business everywhere in the
   class (the validate-then-apply pairs of ``set_internal_state``).
3. ``isinstance``: ``isinstance(<receiver>, ...)`` holds.
4. ``guarded``: ``getattr(w, "x", default)``, ``hasattr(w, "x")``, or a use of
   ``x`` where ``hasattr(w, "x")`` holds.
5. ``private``: a leading underscore.
6. ``required``: anything else. Guards that only mean "speculative mode"
   (``w is not None``, ``if w:``, ``not batch.spec_algorithm.is_none()``) and
   server options (``self.enable_overlap``) do not change that: every
   algorithm reaches the use once the option is set.

``conditional`` is never given to a use: a path a server option selects
(``if self.enable_overlap``) is reached by every algorithm once the option is
set, so its uses are required (the ground truth agrees); what does depend on
a condition is a keyword, recorded on its call as a conditional keyword.

A call records its positional count and keyword names; ``**d`` with ``d`` a
dict built in the function (literal, ``dict(...)``, ``d["k"] = v``,
``d.update(...)``) records ``d``'s keys, and a key added under a condition the
call does not share goes to ``conditional_keywords`` (``grammar_barrier``),
unless the condition is "the server's algorithm is none" (dropped: that key is
never passed to a spec worker).

How a plugin's spec worker is constructed (the constructor keywords):

- ``Cls(**kwargs)`` where ``Cls = self.spec_algorithm.create_worker(...)``
  (0.5.8 on): ``kwargs``'s keys, the conditional ones after the others;
- else, where the algorithm keeps a registry (0.5.4.post2 to 0.5.7):
  ``self.draft_worker = self.spec_algorithm.create_draft_worker(**kwargs)``,
  a method of the algorithm object that passes ``**kwargs`` on to the factory
  its registry made of the registered class (``worker_cls(**kwargs)``).
  A key added only under a positive algorithm predicate (``if
  self.spec_algorithm.name in {"EAGLE", "EAGLE3"}:
  kwargs["enable_overlap"] = ...``) is a built-in algorithm's: a plugin's
  algorithm never meets it, and it is left out.

Neither (no registry: up to 0.5.4.post1 the scheduler constructs its own
classes by name): the contract has no constructor site, and the gate refuses
to check a worker against it
(:func:`~spec_protocols.gate._contract._terms.release_terms`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeGuard

from spec_protocols._releases import NEWEST, OLDEST, OLDEST_READABLE
from spec_protocols.gate._contract._model import (
    BuiltInWorker,
    Classification,
    Contract,
    DefaultNeeds,
    Site,
    Use,
    UseKind,
)
from spec_protocols.gate._contract._source import SglangSource
from spec_protocols.gate._model import GateError

__all__ = ["extract_contract"]

#: Folders (below ``sglang/srt``) whose classes hold the scheduler's spec worker.
SCHEDULER_SIDE = ("managers", "disaggregation")
#: The scheduler's fields that hold the spec worker.
WORKER_FIELDS = ("draft_worker", "model_worker")
#: Members of a worker that are workers themselves (tracked one level deep).
NESTED_WORKERS = ("draft_worker", "target_worker")
SPEC = "spec_worker"

#: Names of the algorithm object (``SpeculativeAlgorithm``, an enum).
_ALGO_NAMES = frozenset({"spec_algorithm", "speculative_algorithm", "algo", "algorithm"})
#: Calls whose first argument is read, not passed on.
_BUILTINS = frozenset(
    {"getattr", "hasattr", "setattr", "isinstance", "callable", "id", "type", "print", "repr", "str", "bool", "len"}
)
_MAX_DEPTH = 4

FactKind = Literal["nonspec", "algorithm", "isinstance", "hasattr", "neutral", "other"]
Via = Literal["", "getattr", "getattr-default", "hasattr", "setattr"]


# -- source ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class _Module:
    name: str
    path: Path
    #: Relative to ``sglang/srt`` (what a Site names).
    rel: str
    tree: ast.Module
    lines: tuple[str, ...] = ()

    def text_of(self, node: ast.stmt) -> str:
        end = getattr(node, "end_lineno", None) or node.lineno
        return "\n".join(self.lines[node.lineno - 1 : end])


class _Tree:
    """The release's modules, parsed on demand (each once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.srt = root / "sglang" / "srt"
        self._by_path: dict[Path, _Module | None] = {}
        self._algorithms: _Algorithms | None = None

    def module_at(self, path: Path) -> _Module | None:
        if path in self._by_path:
            return self._by_path[path]
        module: _Module | None = None
        text = ""
        try:
            text = path.read_text(encoding="utf-8")
            tree: ast.Module | None = ast.parse(text, filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            tree = None  # an unreadable module holds no use we could locate
        if tree is not None:
            relative = path.relative_to(self.root).with_suffix("")
            parts = list(relative.parts)
            if parts[-1] == "__init__":
                parts.pop()
            try:
                rel = path.relative_to(self.srt).as_posix()
            except ValueError:
                rel = path.relative_to(self.root).as_posix()
            module = _Module(".".join(parts), path, rel, tree, tuple(text.splitlines()))
        self._by_path[path] = module
        return module

    def module(self, dotted: str) -> _Module | None:
        if not dotted.startswith("sglang"):
            return None
        base = self.root.joinpath(*dotted.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return self.module_at(candidate)
        return None

    def files_under(self, folder: str) -> list[Path]:
        directory = self.srt / folder
        return sorted(directory.rglob("*.py")) if directory.is_dir() else []

    @property
    def algorithms(self) -> _Algorithms:
        if self._algorithms is None:
            found = _find_class(self, "spec_info.py", "SpeculativeAlgorithm")
            self._algorithms = _Algorithms(found[1] if found else None)
        return self._algorithms


PredicateMeaning = Literal["some", "none", "positive", "negative"]


class _Algorithms:
    """What each predicate of ``SpeculativeAlgorithm`` (an enum) means, read
    from its body: evaluated for every member, ``is_some()`` /
    ``is_speculative()`` hold for every algorithm (they mean "speculative
    mode", like ``not is_none()``), ``is_none()`` for none; ``has_draft_kv()``
    (``not self.is_ngram()``) is a negated one, true for all algorithms but
    some; the others name a subset (``is_dspark()``, ``carries_draft_hidden_states()``).
    A method it does not find or cannot evaluate names a subset."""

    def __init__(self, cls: ast.ClassDef | None) -> None:
        self.cls = cls
        self.methods: dict[str, FunctionNode] = {f.name: f for f in _functions(cls.body)} if cls else {}
        self.members: list[str] = []
        if cls is not None:
            for node in cls.body:
                if isinstance(node, ast.Assign):
                    self.members += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()]
        self._meaning: dict[str, PredicateMeaning] = {}

    def meaning(self, method: str) -> PredicateMeaning:
        if method not in self._meaning:
            self._meaning[method] = self._read(method)
        return self._meaning[method]

    def _returned(self, method: str) -> ast.expr | None:
        func = self.methods.get(method)
        if func is None:
            return None
        body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
            return body[0].value
        return None

    def _read(self, method: str) -> PredicateMeaning:
        returned = self._returned(method)
        speculative = [m for m in self.members if m != "NONE"]
        if returned is None or not speculative:
            return "positive"
        truth = [self._holds(returned, member, 0) for member in speculative]
        if all(t is True for t in truth):
            return "some"
        if all(t is False for t in truth):
            return "none"
        negated = (isinstance(returned, ast.UnaryOp) and isinstance(returned.op, ast.Not)) or (
            isinstance(returned, ast.Compare) and isinstance(returned.ops[0], (ast.NotEq, ast.NotIn))
        )
        return "negative" if negated else "positive"

    def _holds(self, expr: ast.expr, member: str, depth: int) -> bool | None:
        if depth > 6:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, bool):
            return expr.value
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            inner = self._holds(expr.operand, member, depth + 1)
            return None if inner is None else not inner
        if isinstance(expr, ast.BoolOp):
            values = [self._holds(v, member, depth + 1) for v in expr.values]
            if isinstance(expr.op, ast.And):
                return False if False in values else (None if None in values else True)
            return True if True in values else (None if None in values else False)
        if (
            isinstance(expr, ast.Compare)
            and len(expr.ops) == 1
            and isinstance(expr.left, ast.Name)
            and expr.left.id == "self"
        ):
            right = expr.comparators[0]
            elements = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
            names = {e.attr for e in elements if isinstance(e, ast.Attribute)}
            if len(names) != len(elements):
                return None
            op = expr.ops[0]
            if isinstance(op, (ast.Eq, ast.In, ast.Is)):
                return member in names
            if isinstance(op, (ast.NotEq, ast.NotIn, ast.IsNot)):
                return member not in names
            return None
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and isinstance(expr.func.value, ast.Name)
            and expr.func.value.id == "self"
            and not expr.args
        ):
            returned = self._returned(expr.func.attr)
            return None if returned is None else self._holds(returned, member, depth + 1)
        return None


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(body: Iterable[ast.stmt]) -> Iterator[FunctionNode]:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function body, not descending into nested functions or classes."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _last_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Call):
        return _last_name(expr.func)
    if isinstance(expr, ast.Subscript):
        return _last_name(expr.value)
    return ""


def _string(expr: ast.expr | None) -> str | None:
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


def _text(expr: ast.AST, limit: int = 120) -> str:
    text = " ".join(ast.unparse(expr).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- scopes and roots -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Roots:
    """What is a worker in one walk."""

    #: ``self.<attr>`` -> receiver.
    self_attrs: Mapping[str, str] = field(default_factory=dict[str, str])
    #: ``self`` is a scheduler (``self.draft_worker`` is the spec worker).
    scheduler_self: bool = False
    #: Names bound to a receiver from outside (a helper's parameter).
    params: Mapping[str, str] = field(default_factory=dict[str, str])
    #: ``<spec worker>.draft_worker`` etc. are receivers too.
    nested: bool = True


class _Scope:
    """One function being walked: where it is and what its names are bound to."""

    def __init__(
        self,
        module: _Module,
        cls: ast.ClassDef | None,
        func: FunctionNode | None,
        qualname: str,
        roots: _Roots,
        parent: _Scope | None = None,
    ) -> None:
        self.module = module
        self.cls = cls
        self.func = func
        self.qualname = qualname
        self.roots = roots
        self.parent = parent
        self._bindings: dict[str, list[ast.expr]] | None = None
        self._imports: dict[str, tuple[str, str]] = {}

    def _read(self) -> dict[str, list[ast.expr]]:
        """What the function's own names are bound to (read once, when first asked)."""
        if self._bindings is None:
            self._bindings = {}
            if self.func is not None:
                self._read_function(self.func, self._bindings, self._imports)
        return self._bindings

    @property
    def bindings(self) -> dict[str, list[ast.expr]]:
        return self._read()

    @property
    def imports(self) -> dict[str, tuple[str, str]]:
        self._read()
        return self._imports

    def _read_function(
        self, func: FunctionNode, bindings: dict[str, list[ast.expr]], imports: dict[str, tuple[str, str]]
    ) -> None:
        module = self.module
        for node in _own_nodes(func):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bindings.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
                bindings.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.NamedExpr):
                bindings.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.ImportFrom):
                source = _import_source(module, node)
                if source:
                    for alias in node.names:
                        imports[alias.asname or alias.name] = (source, alias.name)

    def binding(self, name: str) -> list[ast.expr] | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.bindings:
                return scope.bindings[name]
            if scope.func is not None and name in _parameters(scope.func):
                return None
            scope = scope.parent
        return None

    def param_root(self, name: str) -> str | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.roots.params:
                return scope.roots.params[name]
            scope = scope.parent
        return None

    def imported(self, name: str) -> tuple[str, str] | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.imports:
                return scope.imports[name]
            scope = scope.parent
        return None

    def child(self, func: FunctionNode) -> _Scope:
        return _Scope(self.module, self.cls, func, f"{self.qualname}.{func.name}", self.roots, self)

    @property
    def owner(self) -> str:
        """The unit a validation covers: the class, else the module-level function."""
        if self.cls is not None:
            return f"{self.module.rel}::{self.cls.name}"
        return f"{self.module.rel}::{self.qualname.split('.')[0]}"


def _parameters(func: FunctionNode) -> list[str]:
    args = func.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def _import_source(module: _Module, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    package = module.name.split(".")
    if not module.path.name == "__init__.py":
        package = package[:-1]
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


# -- facts: what holds where a use runs ------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Fact:
    kind: FactKind
    #: The condition, in words (source text).
    text: str
    #: Which condition this is (the AST node and its polarity): a key of a
    #: ``**kwargs`` dict is conditional when its facts are not the call's.
    origin: tuple[int, bool]
    receiver: str = ""
    member: str = ""


# -- raw uses -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Raw:
    member: str
    receiver: str
    kind: UseKind
    site: Site
    col: int
    facts: tuple[_Fact, ...]
    via: Via = ""
    positional: int = 0
    keywords: tuple[str, ...] = ()
    conditional_keywords: tuple[str, ...] = ()
    #: The class (or module-level function) the use is in: validations cover it.
    owner: str = ""


_ORDER: Mapping[Classification, int] = {
    "required": 0,
    "conditional": 1,
    "private": 2,
    "guarded": 3,
    "isinstance": 4,
    "algorithm": 5,
}


def _classify(raw: _Raw) -> tuple[Classification, str] | None:
    """The classification of one use and why; None when it never reaches a spec worker."""
    nonspec = [f for f in raw.facts if f.kind == "nonspec"]
    if nonspec:
        return None
    reasons: list[tuple[Classification, str]] = []
    algorithm = [f for f in raw.facts if f.kind == "algorithm"]
    if algorithm:
        reasons.append(("algorithm", "only under " + "; ".join(dict.fromkeys(f.text for f in algorithm))))
    owned = [f for f in raw.facts if f.kind == "isinstance" and f.receiver == raw.receiver]
    if owned:
        reasons.append(("isinstance", "only under " + "; ".join(dict.fromkeys(f.text for f in owned))))
    if raw.via in ("getattr-default", "hasattr"):
        reasons.append(("guarded", f"read through {'hasattr' if raw.via == 'hasattr' else 'getattr with a default'}"))
    else:
        checked = [f for f in raw.facts if f.kind == "hasattr" and f.receiver == raw.receiver and f.member == raw.member]
        if checked:
            reasons.append(("guarded", "only under " + checked[0].text))
    if raw.member.startswith("_"):
        reasons.append(("private", "a private name"))
    if not reasons:
        return "required", ""
    primary = reasons[0]
    also = [r for c, r in reasons[1:] if c != primary[0]]
    reason = primary[1] + "".join(f"; also {r}" for r in also)
    return primary[0], reason


# -- the walker -----------------------------------------------------------------------


@dataclass(slots=True)
class _Call:
    """A call the extractor asked for (the constructor, the draft factory)."""

    node: ast.Call
    scope: _Scope
    facts: tuple[_Fact, ...]
    positional: int
    keywords: tuple[str, ...]
    conditional_keywords: tuple[str, ...]
    #: The local the result is bound to, if any.
    bound_to: str | None = None


class _Walker:
    """Walks functions with the conditions that hold at each node, recording uses."""

    def __init__(self, tree: _Tree) -> None:
        self.tree = tree
        self.raw: list[_Raw] = []
        self.calls: list[_Call] = []
        #: Which calls to record in ``calls``: ("create_worker", "") the call of
        #: a local bound to ``...create_worker(...)``; ("name", n) a call of the
        #: enclosing function's parameter ``n``; ("class", n) a call of ``n``;
        #: ("registry", m) a call of the algorithm object's method ``m`` (one
        #: that builds a worker from the algorithm's registry) assigned to the
        #: scheduler's worker field, recorded in ``registry_calls``.
        self.wanted_call: list[tuple[Literal["create_worker", "name", "class", "registry"], str]] = []
        self.registry_calls: list[_Call] = []
        self._followed: set[tuple[int, str, str]] = set()
        self._implies: dict[int, _Fact | None] = {}
        self._dict_events: dict[int, dict[str, list[tuple[str, tuple[_Fact, ...]]]]] = {}
        self._depth = 0
        #: Further names that make a function worth walking (a wanted call's callee).
        self.tokens: set[str] = set()
        self._patterns: dict[frozenset[str], re.Pattern[str]] = {}

    # ---------------------------------------------------------------- entry points

    def walk_function(self, scope: _Scope, facts: tuple[_Fact, ...] = ()) -> None:
        assert scope.func is not None
        # Most functions never mention a worker: a use needs one of these
        # names in the function's text (an alias is bound from one of them).
        tokens = frozenset({*WORKER_FIELDS, "scheduler", *scope.roots.self_attrs, *scope.roots.params, *self.tokens})
        pattern = self._patterns.get(tokens)
        if pattern is None:
            pattern = self._patterns[tokens] = re.compile(r"\b(" + "|".join(sorted(map(re.escape, tokens))) + r")\b")
        if not pattern.search(scope.module.text_of(scope.func)):
            return
        # A function walked again (followed with other conditions) starts afresh.
        self._dict_events.pop(id(scope.func), None)
        self._body(scope.func.body, scope, facts)

    def walk_class(self, module: _Module, cls: ast.ClassDef, roots: _Roots, facts: tuple[_Fact, ...] = ()) -> None:
        for func in _functions(cls.body):
            scope = _Scope(module, cls, func, f"{cls.name}.{func.name}", roots)
            self.walk_function(scope, facts)

    # ---------------------------------------------------------------- statements

    def _body(self, body: Sequence[ast.stmt], scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        current = facts
        for statement in body:
            self._statement(statement, scope, current)
            if isinstance(statement, ast.If) and not statement.orelse and _exits(statement.body):
                current = current + self.facts_of(statement.test, False, scope)
            elif isinstance(statement, ast.Assert):
                current = current + self.facts_of(statement.test, True, scope)

    def _statement(self, node: ast.stmt, scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        if isinstance(node, (ast.If, ast.While)):
            self._expr(node.test, scope, facts)
            self._body(node.body, scope, facts + self.facts_of(node.test, True, scope))
            self._body(node.orelse, scope, facts + self.facts_of(node.test, False, scope))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._expr(node.iter, scope, facts)
            self._target(node.target, scope, facts)
            self._body(node.body, scope, facts)
            self._body(node.orelse, scope, facts)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self._expr(item.context_expr, scope, facts)
                if item.optional_vars is not None:
                    self._target(item.optional_vars, scope, facts)
            self._body(node.body, scope, facts)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            self._body(node.body, scope, facts)
            for handler in node.handlers:
                self._body(handler.body, scope, facts)
            self._body(node.orelse, scope, facts)
            self._body(node.finalbody, scope, facts)
        elif isinstance(node, ast.Match):
            self._expr(node.subject, scope, facts)
            for case in node.cases:
                if case.guard is not None:
                    self._expr(case.guard, scope, facts)
                self._body(case.body, scope, facts)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                self._expr(decorator, scope, facts)
            self._dict_events.pop(id(node), None)
            self._body(node.body, scope.child(node), facts)
        elif isinstance(node, ast.ClassDef):
            return
        elif isinstance(node, ast.Assign):
            self._expr(node.value, scope, facts)
            for target in node.targets:
                self._target(target, scope, facts)
            self._record_dict(node.targets, node.value, scope, facts)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._expr(node.value, scope, facts)
                self._record_dict([node.target], node.value, scope, facts)
            self._target(node.target, scope, facts)
        elif isinstance(node, ast.AugAssign):
            self._expr(node.value, scope, facts)
            self._target(node.target, scope, facts)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._expr(child, scope, facts)

    def _target(self, target: ast.expr, scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        if isinstance(target, ast.Attribute):
            receiver = self.receiver(target.value, scope)
            if receiver is not None:
                self._use(target.attr, receiver, "write", target, scope, facts)
            self._expr(target.value, scope, facts)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element, scope, facts)
        elif isinstance(target, ast.Starred):
            self._target(target.value, scope, facts)
        elif isinstance(target, ast.Subscript):
            self._expr(target.value, scope, facts)
            self._expr(target.slice, scope, facts)
            base = target.value
            key = _string(target.slice)
            if isinstance(base, ast.Name) and key is not None:
                self._dict_event(scope, base.id, key, facts)

    # ---------------------------------------------------------------- expressions

    def _expr(self, node: ast.expr, scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        if isinstance(node, ast.BoolOp):
            current = facts
            for value in node.values:
                self._expr(value, scope, current)
                current = current + self.facts_of(value, isinstance(node.op, ast.And), scope)
            return
        if isinstance(node, ast.IfExp):
            self._expr(node.test, scope, facts)
            self._expr(node.body, scope, facts + self.facts_of(node.test, True, scope))
            self._expr(node.orelse, scope, facts + self.facts_of(node.test, False, scope))
            return
        if isinstance(node, ast.Call):
            self._call(node, scope, facts)
            return
        if isinstance(node, ast.Attribute):
            receiver = self.receiver(node.value, scope)
            if receiver is not None:
                self._use(node.attr, receiver, "read", node, scope, facts)
            self._expr(node.value, scope, facts)
            return
        if isinstance(node, ast.Lambda):
            self._expr(node.body, scope, facts)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._expr(child, scope, facts)
            elif isinstance(child, ast.comprehension):
                self._expr(child.iter, scope, facts)
                for condition in child.ifs:
                    self._expr(condition, scope, facts)
            elif isinstance(child, ast.keyword):
                self._expr(child.value, scope, facts)

    def _call(self, node: ast.Call, scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        func = node.func
        handled_func = False
        # getattr / hasattr / setattr on a receiver.
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2:
            receiver = self.receiver(node.args[0], scope)
            if receiver is not None:
                via: Via
                if func.id == "hasattr":
                    via = "hasattr"
                elif func.id == "setattr":
                    via = "setattr"
                else:
                    via = "getattr-default" if len(node.args) >= 3 else "getattr"
                kind: UseKind = "write" if via == "setattr" else "read"
                for member in self.names_of(node.args[1], scope):
                    self._use(member, receiver, kind, node, scope, facts, via=via)
        # A member called on a receiver.
        elif isinstance(func, ast.Attribute):
            receiver = self.receiver(func.value, scope)
            if receiver is not None:
                positional, keywords, conditional = self.call_shape(node, scope, facts)
                self._use(
                    func.attr,
                    receiver,
                    "call",
                    func,
                    scope,
                    facts,
                    positional=positional,
                    keywords=keywords,
                    conditional=conditional,
                )
                self._expr(func.value, scope, facts)
                handled_func = True
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in ("update", "setdefault"):
            # d.update(k=v) / d.update({"k": v}) / d.setdefault("k", v): keys of a **kwargs dict.
            keys = [k.arg for k in node.keywords if k.arg is not None]
            if func.attr == "update" and node.args and isinstance(node.args[0], ast.Dict):
                keys += [k for k in (_string(key) for key in node.args[0].keys) if k is not None]
            if func.attr == "setdefault" and node.args and _string(node.args[0]) is not None:
                keys.append(str(_string(node.args[0])))
            for key in keys:
                self._dict_event(scope, func.value.id, key, facts)
        if not handled_func:
            self._expr(func, scope, facts)
        for argument in node.args:
            self._expr(argument, scope, facts)
        for keyword in node.keywords:
            self._expr(keyword.value, scope, facts)
        self._maybe_record_call(node, scope, facts)
        self._follow(node, scope, facts)

    def _use(
        self,
        member: str,
        receiver: str,
        kind: UseKind,
        node: ast.expr,
        scope: _Scope,
        facts: tuple[_Fact, ...],
        *,
        via: Via = "",
        positional: int = 0,
        keywords: tuple[str, ...] = (),
        conditional: tuple[str, ...] = (),
    ) -> None:
        self.raw.append(
            _Raw(
                member=member,
                receiver=receiver,
                kind=kind,
                site=Site(scope.module.rel, scope.qualname, node.lineno),
                col=node.col_offset,
                facts=facts,
                via=via,
                positional=positional,
                keywords=keywords,
                conditional_keywords=conditional,
                owner=scope.owner,
            )
        )

    # ---------------------------------------------------------------- receivers

    def receiver(self, expr: ast.expr, scope: _Scope, seen: frozenset[str] = frozenset()) -> str | None:
        """The receiver ``expr`` is (``spec_worker``...), or None."""
        if isinstance(expr, ast.Name):
            root = scope.param_root(expr.id)
            if root is not None:
                return root
            if expr.id in seen:
                return None
            for value in scope.binding(expr.id) or ():
                found = self._bound_receiver(value, scope, seen | {expr.id})
                if found is not None:
                    return found
            return None
        if isinstance(expr, ast.Attribute):
            base = expr.value
            if isinstance(base, ast.Name) and base.id == "self" and expr.attr in scope.roots.self_attrs:
                return scope.roots.self_attrs[expr.attr]
            if expr.attr in WORKER_FIELDS and self.is_scheduler(base, scope, seen):
                return SPEC
            if scope.roots.nested and expr.attr in NESTED_WORKERS and self.receiver(base, scope, seen) == SPEC:
                return f"{SPEC}.{expr.attr}"
            return None
        if isinstance(expr, ast.NamedExpr):
            return self.receiver(expr.value, scope, seen)
        if (
            isinstance(expr, ast.Call)
            and scope.roots.nested
            and isinstance(expr.func, ast.Name)
            and expr.func.id == "getattr"
            and len(expr.args) >= 2
            and _string(expr.args[1]) in NESTED_WORKERS
            and self.receiver(expr.args[0], scope, seen) == SPEC
        ):
            return f"{SPEC}.{_string(expr.args[1])}"
        return None

    def _bound_receiver(self, value: ast.expr, scope: _Scope, seen: frozenset[str]) -> str | None:
        """The receiver a local is bound to, also through ``a or b`` / ``a if c else b``."""
        if isinstance(value, ast.BoolOp):
            for operand in value.values:
                found = self._bound_receiver(operand, scope, seen)
                if found is not None:
                    return found
            return None
        if isinstance(value, ast.IfExp):
            return self._bound_receiver(value.body, scope, seen) or self._bound_receiver(value.orelse, scope, seen)
        return self.receiver(value, scope, seen)

    def is_scheduler(self, expr: ast.expr, scope: _Scope, seen: frozenset[str] = frozenset()) -> bool:
        if isinstance(expr, ast.Attribute):
            return expr.attr == "scheduler"
        if isinstance(expr, ast.Name):
            if expr.id == "self":
                return scope.roots.scheduler_self
            if expr.id == "scheduler":
                return True
            if expr.id in seen:
                return False
            bound = scope.binding(expr.id) or ()
            return any(self.is_scheduler(v, scope, seen | {expr.id}) for v in bound)
        return False

    def names_of(self, expr: ast.expr, scope: _Scope) -> list[str]:
        """The member names a getattr/hasattr name argument can be: a literal,
        or a parameter of the enclosing function that its callers in the same
        class (or module) pass as a literal."""
        literal = _string(expr)
        if literal is not None:
            return [literal]
        if not isinstance(expr, ast.Name) or scope.func is None:
            return []
        parameters = [a.arg for a in (*scope.func.args.posonlyargs, *scope.func.args.args)]
        if expr.id not in _parameters(scope.func):
            return []
        index = parameters.index(expr.id) if expr.id in parameters else None
        is_method = scope.cls is not None and bool(parameters) and parameters[0] in ("self", "cls")
        found: list[str] = []
        container: Sequence[ast.stmt] = scope.cls.body if scope.cls is not None else scope.module.tree.body
        for node in ast.walk(ast.Module(body=list(container), type_ignores=[])):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            if is_method:
                matches = (
                    isinstance(callee, ast.Attribute)
                    and callee.attr == scope.func.name
                    and isinstance(callee.value, ast.Name)
                    and callee.value.id in ("self", "cls")
                )
            else:
                matches = isinstance(callee, ast.Name) and callee.id == scope.func.name
            if not matches:
                continue
            argument: ast.expr | None = None
            if index is not None:
                position = index - (1 if is_method else 0)
                if 0 <= position < len(node.args):
                    argument = node.args[position]
            for keyword in node.keywords:
                if keyword.arg == expr.id:
                    argument = keyword.value
            value = _string(argument)
            if value is not None and value not in found:
                found.append(value)
        return found

    # ---------------------------------------------------------------- conditions

    def facts_of(self, expr: ast.expr, polarity: bool, scope: _Scope, depth: int = 0) -> tuple[_Fact, ...]:
        """What ``expr`` being ``polarity`` tells, taken apart through not/and/or."""
        origin = (id(expr), polarity)
        text = _text(expr) if polarity else f"not ({_text(expr)})"
        other = (_Fact("other", text, origin),)
        if depth > _MAX_DEPTH:
            return other
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return self.facts_of(expr.operand, not polarity, scope, depth)
        if isinstance(expr, ast.BoolOp):
            if isinstance(expr.op, ast.And) == polarity:
                # a and b is true / a or b is false: every operand is.
                collected: tuple[_Fact, ...] = ()
                for value in expr.values:
                    collected += self.facts_of(value, polarity, scope, depth)
                return collected
            return other
        if isinstance(expr, ast.NamedExpr):
            return self.facts_of(expr.value, polarity, scope, depth)
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
            compared = self._compare_facts(expr, polarity, scope, text, origin)
            if compared is not None:
                return compared or other
            if isinstance(expr.ops[0], (ast.Is, ast.IsNot)):
                if isinstance(expr.comparators[0], ast.Constant) and expr.comparators[0].value is None:
                    return (_Fact("neutral", text, origin),)  # `w is not None`: speculative mode
            return other
        if self.receiver(expr, scope) is not None or self.is_scheduler(expr, scope):
            return (_Fact("neutral", text, origin),)  # `if self.draft_worker:`
        if isinstance(expr, ast.Call):
            return self._call_facts(expr, polarity, scope, depth, text, origin) or other
        if (
            polarity
            and isinstance(expr, ast.Attribute)
            and isinstance(expr.value, ast.Name)
            and expr.value.id == "self"
            and scope.cls is not None
        ):
            # A property of the class: `if self.uses_relay:` reads like a call.
            prop = next((f for f in _functions(scope.cls.body) if f.name == expr.attr), None)
            if prop is not None and any(_last_name(d) == "property" for d in prop.decorator_list):
                implied = self._implied_by(scope.module, prop, depth)
                if implied is not None:
                    return (_Fact("algorithm", f"{text}, which {implied.text}", origin),)
        if isinstance(expr, ast.Name):
            bound = scope.binding(expr.id)
            if bound and len(bound) == 1:
                inner = self.facts_of(bound[0], polarity, scope, depth + 1)
                bound_text = _text(bound[0], 80)
                return tuple(
                    replace(
                        f,
                        text=f"{expr.id} = {f.text}"
                        if f.text.startswith(bound_text)
                        else f"{expr.id} (= {bound_text}): {f.text}",
                    )
                    if f.kind == "algorithm"
                    else f
                    for f in inner
                )
        return other

    def _compare_facts(
        self, expr: ast.Compare, polarity: bool, scope: _Scope, text: str, origin: tuple[int, bool]
    ) -> tuple[_Fact, ...] | None:
        """``algo == X.EAGLE``, ``algo in (...)``, ``algo is None``: like a
        predicate of the algorithm object. None when ``expr`` compares something else."""
        left, right = expr.left, expr.comparators[0]
        if not self._compares_algorithm(left, scope):
            left, right = right, left
            if not self._compares_algorithm(left, scope):
                return None
        elements = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
        if _is_algorithm_name(left) and not all(_string(e) is not None for e in elements):
            return None  # `algo.name == other.name`: names no algorithm
        if _is_algorithm_name(left):
            left = left.value  # the algorithm object (a batch's or the server's)
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
        positive = isinstance(expr.ops[0], (ast.Eq, ast.In, ast.Is)) == polarity
        if not isinstance(expr.ops[0], (ast.Eq, ast.In, ast.Is, ast.NotEq, ast.NotIn, ast.IsNot)):
            return None
        if names == {"NONE"}:
            if not positive:
                return (_Fact("neutral", text, origin),)
            return () if self._per_batch(left, scope) else (_Fact("nonspec", text, origin),)
        return (_Fact("algorithm", text, origin),) if positive else ()

    def _call_facts(
        self, call: ast.Call, polarity: bool, scope: _Scope, depth: int, text: str, origin: tuple[int, bool]
    ) -> tuple[_Fact, ...]:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "isinstance" and len(call.args) == 2:
            receiver = self.receiver(call.args[0], scope)
            if receiver is not None and polarity:
                return (_Fact("isinstance", text, origin, receiver=receiver),)
            return ()
        if isinstance(func, ast.Name) and func.id == "hasattr" and len(call.args) == 2:
            receiver = self.receiver(call.args[0], scope)
            if receiver is not None and polarity:
                return tuple(
                    _Fact("hasattr", text, origin, receiver=receiver, member=name)
                    for name in self.names_of(call.args[1], scope)
                )
            return ()
        if isinstance(func, ast.Attribute) and self.is_algorithm(func.value, scope):
            meaning = self.tree.algorithms.meaning(func.attr)
            if meaning in ("some", "none"):
                if (meaning == "some") == polarity:
                    return (_Fact("neutral", text, origin),)  # speculative mode
                if self._per_batch(func.value, scope):
                    return ()  # a batch without speculation, in a speculative server
                return (_Fact("nonspec", text, origin),)
            if (meaning == "positive") == polarity:
                return (_Fact("algorithm", text, origin),)
            return ()  # all algorithms but some: the general path
        if polarity:
            implied = self._implied_by_callee(call, scope, depth)
            if implied is not None:
                return (_Fact("algorithm", f"{text}, which {implied.text}", origin),)
        return ()

    def _compares_algorithm(self, expr: ast.expr, scope: _Scope) -> bool:
        """The algorithm object, or its name (``spec_algorithm.name``, compared
        with the names of algorithms: 0.5.5's registry-backed class)."""
        if _is_algorithm_name(expr):
            return self.is_algorithm(expr.value, scope)
        return self.is_algorithm(expr, scope)

    def is_algorithm(self, expr: ast.expr, scope: _Scope, seen: frozenset[str] = frozenset()) -> bool:
        """Whether ``expr`` is the algorithm object (``SpeculativeAlgorithm``)."""
        if isinstance(expr, ast.Attribute):
            return expr.attr in _ALGO_NAMES
        if isinstance(expr, ast.Name):
            if expr.id in _ALGO_NAMES or expr.id == "SpeculativeAlgorithm":
                return True
            if expr.id in seen:
                return False
            return any(self._mentions_algorithm(v, scope, seen | {expr.id}) for v in scope.binding(expr.id) or ())
        if isinstance(expr, ast.Call):
            return self._mentions_algorithm(expr, scope, seen)
        return False

    def _mentions_algorithm(self, value: ast.expr, scope: _Scope, seen: frozenset[str]) -> bool:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            # SpeculativeAlgorithm.from_string(...) / x.spec_algorithm
            return self.is_algorithm(value.func.value, scope, seen)
        return isinstance(value, (ast.Name, ast.Attribute)) and self.is_algorithm(value, scope, seen)

    def _per_batch(self, expr: ast.expr, scope: _Scope) -> bool:
        """Whether an algorithm object belongs to a batch (``batch.spec_algorithm``),
        not to the server: a batch may run without speculation in a speculative server."""
        if isinstance(expr, ast.Attribute):
            return "batch" in _last_name(expr.value).lower()
        if isinstance(expr, ast.Name):
            bound = scope.binding(expr.id) or ()
            return any(isinstance(v, ast.Attribute) and self._per_batch(v, scope) for v in bound)
        return False

    def _implied_by_callee(self, call: ast.Call, scope: _Scope, depth: int) -> _Fact | None:
        """When ``call`` calls a function of the release that returns False
        unless an algorithm predicate holds: that predicate (a fact)."""
        resolved = self.resolve(call.func, scope)
        if resolved is None:
            return None
        module, node, _owner = resolved
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        return self._implied_by(module, node, depth)

    def _implied_by(self, module: _Module, node: FunctionNode, depth: int) -> _Fact | None:
        """The algorithm predicate without which ``node`` returns False, if any."""
        key = id(node)
        if key in self._implies:
            return self._implies[key]
        self._implies[key] = None  # cycles
        inner = _Scope(module, None, node, node.name, _Roots())
        found: _Fact | None = None
        returns = 0
        for returned, holds in self._returns(node.body, (), inner, depth + 1):
            if returned.value is None or _falsy(returned.value):
                continue
            returns += 1
            holds = holds + self.facts_of(returned.value, True, inner, depth + 1)
            algorithm = next((f for f in holds if f.kind == "algorithm"), None)
            if algorithm is None:
                return None  # it can return something true for every algorithm
            found = found or algorithm
        if returns and found is not None:
            result = _Fact("algorithm", f"is False unless {found.text} ({module.rel} {node.name})", found.origin)
            self._implies[key] = result
            return result
        return None

    def _returns(
        self, body: Sequence[ast.stmt], facts: tuple[_Fact, ...], scope: _Scope, depth: int
    ) -> list[tuple[ast.Return, tuple[_Fact, ...]]]:
        """Every ``return`` of a body with what holds where it runs."""
        found: list[tuple[ast.Return, tuple[_Fact, ...]]] = []
        current = facts
        for statement in body:
            if isinstance(statement, ast.Return):
                found.append((statement, current))
            elif isinstance(statement, ast.If):
                found += self._returns(statement.body, current + self.facts_of(statement.test, True, scope, depth), scope, depth)
                otherwise = current + self.facts_of(statement.test, False, scope, depth)
                found += self._returns(statement.orelse, otherwise, scope, depth)
                if not statement.orelse and _exits(statement.body):
                    current = otherwise
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)):
                for field_name in ("body", "orelse", "finalbody"):
                    found += self._returns(getattr(statement, field_name, []), current, scope, depth)
                for handler in getattr(statement, "handlers", []):
                    found += self._returns(handler.body, current, scope, depth)
        return found

    # ---------------------------------------------------------------- calls and **kwargs

    def _record_dict(self, targets: Sequence[ast.expr], value: ast.expr, scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if not names:
            return
        for key, key_facts in self._dict_keys(value, scope, facts):
            for name in names:
                self._dict_event(scope, name, key, key_facts)

    def _dict_keys(self, value: ast.expr, scope: _Scope, facts: tuple[_Fact, ...]) -> list[tuple[str, tuple[_Fact, ...]]]:
        if isinstance(value, ast.Dict):
            return [(k, facts) for k in (_string(key) for key in value.keys) if k is not None]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
            return [(k.arg, facts) for k in value.keywords if k.arg is not None]
        if isinstance(value, ast.IfExp):
            return self._dict_keys(value.body, scope, facts + self.facts_of(value.test, True, scope)) + self._dict_keys(
                value.orelse, scope, facts + self.facts_of(value.test, False, scope)
            )
        return []

    def _dict_event(self, scope: _Scope, name: str, key: str, facts: tuple[_Fact, ...]) -> None:
        events = self._dict_events.setdefault(id(scope.func), {})
        events.setdefault(name, []).append((key, facts))

    def call_shape(
        self, call: ast.Call, scope: _Scope, facts: tuple[_Fact, ...], *, for_plugin: bool = False
    ) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
        """(positional count, keywords, conditional keywords) of a call.

        ``for_plugin``: the call as a plugin's algorithm meets it, where no
        positive algorithm predicate holds: a ``**kwargs`` key added only under
        one is not passed."""
        keywords: list[str] = []
        conditional: list[str] = []
        own = {f.origin for f in facts}
        for keyword in call.keywords:
            if keyword.arg is not None:
                keywords.append(keyword.arg)
                continue
            for key, key_facts, unresolved in self._expand(keyword.value, scope):
                if unresolved:
                    keywords.append(key)
                    continue
                extra = [f for f in key_facts if f.origin not in own]
                if any(f.kind == "nonspec" for f in extra):
                    continue  # only passed when the server does not speculate
                if for_plugin and any(f.kind == "algorithm" for f in extra):
                    continue  # only passed to a built-in algorithm's worker
                target = keywords if all(f.kind == "neutral" for f in extra) else conditional
                target.append(key)
        keywords = list(dict.fromkeys(keywords))
        conditional = [k for k in dict.fromkeys(conditional) if k not in keywords]
        return len(call.args), tuple(keywords), tuple(conditional)

    def _expand(self, value: ast.expr, scope: _Scope) -> list[tuple[str, tuple[_Fact, ...], bool]]:
        """The keys of a ``**value`` argument: (key, facts where it was added, unresolved)."""
        if isinstance(value, (ast.Dict, ast.IfExp)) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"
        ):
            return [(k, f, False) for k, f in self._dict_keys(value, scope, ())]
        if isinstance(value, ast.Name):
            events = self._dict_events.get(id(scope.func), {}).get(value.id)
            if events:
                return [(k, f, False) for k, f in events]
        return [(f"**{_text(value, 40)}", (), True)]

    def _maybe_record_call(self, call: ast.Call, scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        func = call.func
        if isinstance(func, ast.Attribute):
            self._maybe_record_registry_call(call, func, scope, facts)
            return
        if not isinstance(func, ast.Name):
            return
        wanted = False
        for kind, name in self.wanted_call:
            if kind == "name":
                wanted = wanted or (func.id == name and scope.func is not None and name in _parameters(scope.func))
            elif kind == "create_worker":
                bound = scope.binding(func.id) or ()
                wanted = wanted or any(
                    isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "create_worker"
                    for v in bound
                )
            elif kind == "class":
                wanted = wanted or func.id == name
        if not wanted:
            return
        positional, keywords, conditional = self.call_shape(call, scope, facts)
        self.calls.append(_Call(call, scope, facts, positional, keywords, conditional, _bound_name(scope, call)))

    def _maybe_record_registry_call(
        self, call: ast.Call, func: ast.Attribute, scope: _Scope, facts: tuple[_Fact, ...]
    ) -> None:
        """``self.draft_worker = self.spec_algorithm.create_draft_worker(**kwargs)``:
        a registry method (see :func:`_registry_methods`) of the algorithm object
        whose result becomes the scheduler's spec worker. Its keywords are those
        a plugin's worker is constructed with: a key the dict gets only under a
        positive algorithm predicate (``if self.spec_algorithm.name in
        {"EAGLE", "EAGLE3"}:``) is a built-in algorithm's, never a plugin's."""
        methods = {name for kind, name in self.wanted_call if kind == "registry"}
        if func.attr not in methods or not self.is_algorithm(func.value, scope):
            return
        if not self._assigned_to_worker_field(call, scope):
            return
        positional, keywords, conditional = self.call_shape(call, scope, facts, for_plugin=True)
        self.registry_calls.append(_Call(call, scope, facts, positional, keywords, conditional))

    def _assigned_to_worker_field(self, call: ast.Call, scope: _Scope) -> bool:
        """Whether ``call``'s result is assigned to the scheduler's spec worker (``self.draft_worker = call``)."""
        if scope.func is None:
            return False
        for node in _own_nodes(scope.func):
            if isinstance(node, ast.Assign) and node.value is call:
                return any(isinstance(t, ast.Attribute) and self.receiver(t, scope) == SPEC for t in node.targets)
        return False

    # ---------------------------------------------------------------- following the worker

    def resolve(self, func: ast.expr, scope: _Scope) -> tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, ast.ClassDef | None] | None:
        """The function or class of the release that ``func`` names, if any."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            if scope.cls is not None:
                for node in scope.cls.body:
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func.attr:
                        return scope.module, node, scope.cls
            return None
        if not isinstance(func, ast.Name):
            return None
        imported = scope.imported(func.id)
        if imported is not None:
            return self._resolve_in(imported[0], imported[1], 0)
        return self._lookup(scope.module, func.id, 0)

    def _lookup(
        self, module: _Module, name: str, hops: int
    ) -> tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, ast.ClassDef | None] | None:
        for node in module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                return module, node, None
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        source = _import_source(module, node)
                        if source:
                            return self._resolve_in(source, alias.name, hops + 1)
        return None

    def _resolve_in(
        self, dotted: str, name: str, hops: int
    ) -> tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, ast.ClassDef | None] | None:
        if hops > 2:
            return None
        module = self.tree.module(dotted)
        return self._lookup(module, name, hops) if module is not None else None

    def _follow(self, call: ast.Call, scope: _Scope, facts: tuple[_Fact, ...]) -> None:
        """A call that passes a receiver on: read the callee with the parameter
        (or the attribute it is stored in) as a receiver."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in _BUILTINS:
            return
        passed: list[tuple[int | str, str]] = []
        for index, argument in enumerate(call.args):
            receiver = self.receiver(argument, scope)
            if receiver is not None:
                passed.append((index, receiver))
        for keyword in call.keywords:
            if keyword.arg is not None:
                receiver = self.receiver(keyword.value, scope)
                if receiver is not None:
                    passed.append((keyword.arg, receiver))
        if not passed or self._depth >= _MAX_DEPTH:
            return
        resolved = self.resolve(func, scope)
        if resolved is None:
            return
        module, node, owner = resolved
        where = f"{scope.module.rel} {scope.qualname}"
        inherited = tuple(
            replace(f, text=f"{f.text} (where {where} passes it to {node.name})") if f.kind in ("algorithm", "isinstance") else f
            for f in facts
        )
        self._depth += 1
        try:
            if isinstance(node, ast.ClassDef):
                self._follow_class(module, node, passed, inherited)
            else:
                self._follow_function(module, node, owner, passed, inherited, bound_method=owner is not None)
        finally:
            self._depth -= 1

    def _follow_function(
        self,
        module: _Module,
        func: FunctionNode,
        owner: ast.ClassDef | None,
        passed: list[tuple[int | str, str]],
        facts: tuple[_Fact, ...],
        *,
        bound_method: bool,
    ) -> None:
        positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
        if bound_method and positional:
            positional = positional[1:]
        params: dict[str, str] = {}
        for where, receiver in passed:
            if isinstance(where, int):
                if where < len(positional):
                    params[positional[where]] = receiver
            elif where in _parameters(func):
                params[where] = receiver
        for name, receiver in params.items():
            key = (id(func), name, receiver)
            if key in self._followed:
                continue
            self._followed.add(key)
            qualname = f"{owner.name}.{func.name}" if owner is not None else func.name
            roots = _Roots(self_attrs={}, scheduler_self=False, params={name: receiver})
            self.walk_function(_Scope(module, owner, func, qualname, roots), facts)

    def _follow_class(self, module: _Module, cls: ast.ClassDef, passed: list[tuple[int | str, str]], facts: tuple[_Fact, ...]) -> None:
        attrs: dict[str, str] = {}
        init = next((f for f in _functions(cls.body) if f.name == "__init__"), None)
        if init is not None:
            positional = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
            params: dict[str, str] = {}
            for where, receiver in passed:
                if isinstance(where, int) and where < len(positional):
                    params[positional[where]] = receiver
                elif isinstance(where, str) and where in _parameters(init):
                    params[where] = receiver
            for node in _own_nodes(init):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params:
                    for target in node.targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                            attrs[target.attr] = params[node.value.id]
        elif any("dataclass" in _text(d) for d in cls.decorator_list):
            fields = [n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
            for where, receiver in passed:
                if isinstance(where, int) and where < len(fields):
                    attrs[fields[where]] = receiver
                elif isinstance(where, str) and where in fields:
                    attrs[where] = receiver
        fresh = {a: r for a, r in attrs.items() if (id(cls), a, r) not in self._followed}
        if not fresh:
            return
        for attr, receiver in fresh.items():
            self._followed.add((id(cls), attr, receiver))
        self.walk_class(module, cls, _Roots(self_attrs=fresh, scheduler_self=False), facts)


def _is_algorithm_name(expr: ast.expr) -> TypeGuard[ast.Attribute]:
    """``<something>.name``: an algorithm's name when ``<something>`` is the algorithm object."""
    return isinstance(expr, ast.Attribute) and expr.attr == "name"


def _bound_name(scope: _Scope, call: ast.Call) -> str | None:
    if scope.func is None:
        return None
    for node in _own_nodes(scope.func):
        if isinstance(node, ast.Assign) and node.value is call:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    return target.id
    return None


def _falsy(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and not expr.value


def _exits(body: Sequence[ast.stmt]) -> bool:
    """Whether a block always leaves (return, raise, continue, break)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return True
    if isinstance(last, ast.If):
        return _exits(last.body) and _exits(last.orelse)
    return False


# -- the scheduler side ---------------------------------------------------------------


def _is_worker_class(cls: ast.ClassDef) -> bool:
    """A worker class: there ``self.draft_worker`` is its own draft, not the spec worker."""
    names = [cls.name, *(_last_name(b) for b in cls.bases)]
    return any(n.endswith(("Worker", "WorkerBase")) for n in names)


_SCHEDULER_ROOTS = _Roots(
    self_attrs={name: SPEC for name in WORKER_FIELDS},
    scheduler_self=True,
)


def _walk_scheduler_side(tree: _Tree, walker: _Walker) -> None:
    # A file that never names a worker field holds no use
    # (most of managers/): it is not even parsed.
    mentions = re.compile(r"\b(" + "|".join(sorted({*WORKER_FIELDS, *walker.tokens})) + r")\b")
    for folder in SCHEDULER_SIDE:
        for path in tree.files_under(folder):
            try:
                if not mentions.search(path.read_text(encoding="utf-8")):
                    continue
            except (OSError, UnicodeDecodeError):
                continue
            module = tree.module_at(path)
            if module is None:
                continue
            for node in module.tree.body:
                if isinstance(node, ast.ClassDef):
                    if _is_worker_class(node):
                        continue
                    walker.walk_class(module, node, _SCHEDULER_ROOTS)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    walker.walk_function(_Scope(module, None, node, node.name, _Roots(scheduler_self=False)))


def _finish(raw: Iterable[_Raw]) -> tuple[Use, ...]:
    """Classify, merge duplicates (a use reached twice keeps its least
    restrictive classification), apply validations, sort."""
    classified: dict[tuple[str, str, int, int, str, str, str], tuple[_Raw, Classification, str]] = {}
    for item in raw:
        verdict = _classify(item)
        if verdict is None:
            continue
        key = (item.site.file, item.site.function, item.site.line, item.col, item.member, item.receiver, item.kind)
        known = classified.get(key)
        if known is None or _ORDER[verdict[0]] < _ORDER[known[1]]:
            classified[key] = (item, verdict[0], verdict[1])
    # A member whose presence a class validates (hasattr) only for one algorithm
    # is that algorithm's business wherever the class uses it.
    validated: dict[tuple[str, str, str], str] = {}
    for item, classification, reason in classified.values():
        if item.via == "hasattr" and classification == "algorithm":
            under = "; ".join(dict.fromkeys(f.text for f in item.facts if f.kind == "algorithm"))
            validated.setdefault(
                (item.owner, item.receiver, item.member),
                f"its presence is validated (hasattr) only under {under} "
                f"({item.site.file}:{item.site.line} {item.site.function})",
            )
    uses: list[Use] = []
    for item, classification, reason in classified.values():
        if classification in ("required", "private", "guarded"):
            because = validated.get((item.owner, item.receiver, item.member))
            if because is not None:
                reason = because + (f"; also {reason}" if reason else "")
                classification = "algorithm"
        uses.append(
            Use(
                member=item.member,
                receiver=item.receiver,
                kind=item.kind,
                classification=classification,
                site=item.site,
                positional=item.positional,
                keywords=item.keywords,
                conditional_keywords=item.conditional_keywords,
                reason=reason,
            )
        )
    return tuple(sorted(uses, key=_use_order))


def _use_order(use: Use) -> tuple[Site, str, str, str, str]:
    return (use.site, use.member, use.receiver, use.kind, use.classification)


# -- BaseSpecWorker's defaults ---------------------------------------------------------


def _modules_matching(tree: _Tree, preferred: str, pattern: re.Pattern[str]) -> Iterator[_Module]:
    """The parsed modules of ``speculative/`` whose text matches ``pattern``,
    ``speculative/<preferred>`` first. The regex is a cheap filter: only the
    few files that can define the name are parsed."""
    candidates = [tree.srt / "speculative" / preferred, *tree.files_under("speculative")]
    for path in dict.fromkeys(candidates):
        if not path.is_file():
            continue
        try:
            if not pattern.search(path.read_text(encoding="utf-8")):
                continue
        except (OSError, UnicodeDecodeError):
            continue
        module = tree.module_at(path)
        if module is not None:
            yield module


def _find_class(tree: _Tree, preferred: str, name: str) -> tuple[_Module, ast.ClassDef] | None:
    """``class name`` in ``speculative/<preferred>``, else anywhere in ``speculative/``."""
    for module in _modules_matching(tree, preferred, re.compile(rf"^class {re.escape(name)}\b", re.MULTILINE)):
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return module, node
    return None


def _find_function(tree: _Tree, preferred: str, name: str) -> tuple[_Module, FunctionNode] | None:
    """Module-level ``def name`` in ``speculative/<preferred>``, else anywhere in ``speculative/``."""
    pattern = re.compile(rf"^(async )?def {re.escape(name)}\b", re.MULTILINE)
    for module in _modules_matching(tree, preferred, pattern):
        # With @overload signatures, the implementation is what runs: its
        # body passes the keywords and its parameters have the defaults.
        # (A module of overloads only, as a stub, keeps its first.)
        found = [node for node in _functions(module.tree.body) if node.name == name]
        implementations = [node for node in found if not _is_overload(node)]
        if implementations:
            return module, implementations[-1]
        if found:
            return module, found[0]
    return None


def _is_overload(func: FunctionNode) -> bool:
    return any(_last_name(d) == "overload" for d in func.decorator_list)


def _is_abstract(func: FunctionNode) -> bool:
    return any(_last_name(d) == "abstractmethod" for d in func.decorator_list)


def _reached_on(tree: _Tree, module: _Module, cls: ast.ClassDef, func: FunctionNode) -> dict[str, set[Classification]]:
    """How ``func`` reaches each ``self.<name>`` it reads or calls: the
    classifications of those uses, with ``self`` as the receiver.

    A walker of its own, so that the defaults' needs above are read exactly
    as before. A name it does not record (a use the walker drops) is absent:
    the caller then follows it, which may over-approximate, never miss.
    """
    qualname = f"{cls.name}.{func.name}"
    walker = _Walker(tree)
    walker.walk_function(_Scope(module, cls, func, qualname, _Roots(params={"self": "self"}, nested=False)))
    found: dict[str, set[Classification]] = {}
    for use in _finish(walker.raw):
        if use.receiver == "self" and use.site.file == module.rel and use.site.function == qualname:
            found.setdefault(use.member, set()).add(use.classification)
    return found


def _defaults(tree: _Tree) -> tuple[DefaultNeeds, ...]:
    found = _find_class(tree, "base_spec_worker.py", "BaseSpecWorker")
    if found is None:
        return ()
    module, cls = found
    methods = [f for f in _functions(cls.body) if not _is_abstract(f)]
    members = {f.name for f in _functions(cls.body)}
    # State the base itself provides: class attributes and self.x assignments.
    provided: dict[str, str] = {}
    for node in cls.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    provided[target.id] = "a class attribute of BaseSpecWorker"
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            provided[node.target.id] = "a class attribute of BaseSpecWorker"
    for func in methods:
        for inner in _own_nodes(func):
            targets: list[ast.expr] = []
            if isinstance(inner, ast.Assign):
                targets = list(inner.targets)
            elif isinstance(inner, (ast.AnnAssign, ast.AugAssign)):
                targets = [inner.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    provided.setdefault(target.attr, f"set by BaseSpecWorker.{func.name}")
    roots = _Roots(self_attrs={"draft_worker": "draft_worker", "target_worker": "target_worker"}, nested=False)
    by_method: dict[str, list[Use]] = {}
    relies: dict[str, list[str]] = {}
    reached: dict[str, dict[str, set[Classification]]] = {}
    order: dict[str, int] = {}
    for func in methods:
        walker = _Walker(tree)
        scope = _Scope(module, cls, func, f"{cls.name}.{func.name}", roots)
        walker.walk_function(scope)
        order.setdefault(func.name, func.lineno)
        needs = by_method.setdefault(func.name, [])
        needs.extend(u for u in _finish(walker.raw) if u.receiver in ("draft_worker", "target_worker"))
        relied: dict[str, tuple[int, int]] = {}
        for read in _own_nodes(func):
            if not (isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name) and read.value.id == "self"):
                continue
            if read.attr in members:
                if read.attr != func.name:
                    at = (read.lineno, read.col_offset)
                    relied[read.attr] = min(relied.get(read.attr, at), at)
            elif isinstance(read.ctx, ast.Load):
                reason = provided.get(
                    read.attr, "never assigned by BaseSpecWorker: a subclass that keeps this default must set it"
                )
                classification: Classification = "private" if read.attr.startswith("_") else "required"
                needs.append(
                    Use(
                        member=read.attr,
                        receiver="self",
                        kind="read",
                        classification=classification,
                        site=Site(module.rel, f"{cls.name}.{func.name}", read.lineno),
                        reason=reason,
                    )
                )
        known = relies.setdefault(func.name, [])  # a property's setter adds to its getter
        known.extend(n for n in sorted(relied, key=relied.__getitem__) if n not in known)
        # How it reaches each default it relies on (a property's getter and
        # setter together): a plugin's algorithm never takes a branch that only
        # an algorithm predicate opens.
        how = reached.setdefault(func.name, {})
        for name, classifications in _reached_on(tree, module, cls, func).items():
            if name in relied:
                how.setdefault(name, set()).update(classifications)
    return tuple(
        DefaultNeeds(
            method=name,
            needs=tuple(sorted(dict.fromkeys(by_method[name]), key=_use_order)),
            relies_on=tuple(relies[name]),
            relies_on_algorithm=tuple(r for r in relies[name] if reached[name].get(r) == {"algorithm"}),
        )
        for name in sorted(by_method, key=lambda n: order[n])
    )


# -- construction and build_draft_tp_worker ---------------------------------------------


def _constructor(walker: _Walker) -> tuple[tuple[str, ...], Site | None]:
    """The keywords of ``Cls(**kwargs)`` where ``Cls = ...create_worker(...)``.

    Keywords added to the dict only under a condition are listed too (after
    the others): the model has one tuple, and a worker must accept every
    keyword it may be constructed with. The same holds for the draft factory.
    """
    for call in walker.calls:
        func = call.node.func
        if not isinstance(func, ast.Name):
            continue
        bound = call.scope.binding(func.id) or ()
        if any(isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "create_worker" for v in bound):
            keywords = call.keywords + call.conditional_keywords
            return keywords, Site(call.scope.module.rel, call.scope.qualname, call.node.lineno)
    return (), None


def _registry_constructor(walker: _Walker) -> tuple[tuple[str, ...], Site | None]:
    """The keywords of ``self.draft_worker = self.spec_algorithm.<m>(**kwargs)``,
    where ``<m>`` builds the worker from the algorithm's registry
    (0.5.4.post2 to 0.5.7: ``create_draft_worker``, see
    :func:`_registry_methods`), as a
    plugin's worker is constructed with them: ``kwargs``'s keys, less those
    added only under a positive algorithm predicate (``enable_overlap``, for
    ``EAGLE`` / ``EAGLE3`` alone); keys added under another condition follow
    the others, as in :func:`_constructor`."""
    for call in walker.registry_calls:
        keywords = call.keywords + call.conditional_keywords
        return keywords, Site(call.scope.module.rel, call.scope.qualname, call.node.lineno)
    return (), None


def _registry_methods(tree: _Tree) -> tuple[str, ...]:
    """The methods of the algorithm object that construct a worker registered
    with the algorithm, passing on the keywords they are given.

    Such a release (0.5.4.post2 to 0.5.7) keeps a factory per algorithm:
    ``create_draft_worker(self, **factory_kwargs)`` calls it with
    ``**factory_kwargs``, and a registered class is made that factory by a
    function of the same module that wraps it, ``_factory(_, **kwargs): return
    worker_cls(**kwargs)`` (``register_speculative_algorithm(name,
    worker_cls)``). A method counts only when both are there: then what the
    scheduler passes the method is what a plugin's class is constructed with.
    """
    found = _find_class(tree, "spec_info.py", "SpeculativeAlgorithm")
    if found is None:
        return ()
    module, cls = found
    if not any(_wraps_a_class(func) for func in _functions(module.tree.body)):
        return ()
    return tuple(f.name for f in _functions(cls.body) if f.args.kwarg is not None and _forwards_keywords(f, f.args.kwarg.arg))


def _forwards_keywords(func: FunctionNode, kwargs: str) -> bool:
    """Whether ``func`` passes its ``**kwargs`` on, whole, to a call."""
    return any(
        isinstance(node, ast.Call)
        and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs for k in node.keywords)
        for node in _own_nodes(func)
    )


def _wraps_a_class(func: FunctionNode) -> bool:
    """Whether ``func`` (a module-level function) makes a factory of a class it
    is given: a nested function that calls that parameter with its own ``**kwargs``."""
    given = set(_parameters(func))
    for inner in _own_nodes(func):
        if not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) or inner.args.kwarg is None:
            continue
        kwargs = inner.args.kwarg.arg
        for node in _own_nodes(inner):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in given
                and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs for k in node.keywords)
            ):
                return True
    return False


def _draft_factory(tree: _Tree) -> tuple[tuple[str, ...] | None, Site | None, tuple[Use, ...]]:
    """``build_draft_tp_worker``: the keywords it passes ``draft_worker_cls``
    (None without that parameter), where, and what it does with what it built."""
    found = _find_function(tree, "draft_worker_common.py", "build_draft_tp_worker")
    if found is None:
        return None, None, ()
    module, func = found
    injected = "draft_worker_cls" in _parameters(func)
    walker = _Walker(tree)
    if injected:
        walker.wanted_call.append(("name", "draft_worker_cls"))
        walker.tokens.add("draft_worker_cls")
    else:
        # No injection point (0.5.18): the built object is the worker class it
        # constructs itself, a CamelCase call ending in "Worker".
        built_here = sorted(
            (node.lineno, node.func.id)
            for node in _own_nodes(func)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith("Worker")
        )
        if built_here:
            walker.wanted_call.append(("class", built_here[0][1]))
            walker.tokens.add(built_here[0][1])
    scope = _Scope(module, None, func, func.name, _Roots())
    walker.walk_function(scope)
    if not walker.calls:
        return None, None, ()
    call = walker.calls[0]
    site = Site(module.rel, func.name, call.node.lineno)
    built: tuple[Use, ...] = ()
    if call.bound_to is not None:
        use_walker = _Walker(tree)
        use_scope = _Scope(module, None, func, func.name, _Roots(params={call.bound_to: "built_draft"}, nested=False))
        use_walker.walk_function(use_scope)
        built = tuple(u for u in _finish(use_walker.raw) if u.receiver == "built_draft")
    if not injected:
        return None, None, built
    return call.keywords + call.conditional_keywords, site, built


# -- the built-in workers ----------------------------------------------------------------


def _built_in_workers(tree: _Tree) -> tuple[BuiltInWorker, ...]:
    """The classes ``SpeculativeAlgorithm.create_worker`` returns, each where
    it is defined.

    Every branch imports its worker and returns it (``from
    sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2; return
    DFlashWorkerV2``); a return of anything else (0.5.23's
    ``platform_worker_cls``, an out-of-tree platform's replacement) names no
    class of sglang and is left out.
    """
    found = _find_class(tree, "spec_info.py", "SpeculativeAlgorithm")
    if found is None:
        return ()
    module, cls = found
    create = next((f for f in _functions(cls.body) if f.name == "create_worker"), None)
    if create is None:
        return ()
    imports: dict[str, tuple[str, str]] = {}
    defined: set[str] = set()
    for node in _module_level(module.tree.body):
        if isinstance(node, ast.ImportFrom) and (source := _import_source(module, node)):
            imports.update({alias.asname or alias.name: (source, alias.name) for alias in node.names})
        elif isinstance(node, ast.ClassDef):
            defined.add(node.name)
    # The function's own imports shadow the module's.
    imports.update(_Scope(module, cls, create, f"{cls.name}.create_worker", _Roots()).imports)
    workers: dict[str, BuiltInWorker] = {}
    returns = sorted((n for n in _own_nodes(create) if isinstance(n, ast.Return)), key=lambda n: (n.lineno, n.col_offset))
    for node in returns:
        for name in _returned_names(node.value):
            if name in imports:
                where: tuple[str, str] | None = _defining_module(tree, *imports[name])
            elif name in defined:
                where = (module.name, name)
            else:
                where = None
            if where is not None:
                worker = BuiltInWorker(where[0], where[1], Site(module.rel, f"{cls.name}.create_worker", node.lineno))
                workers.setdefault(worker.dotted, worker)
    return tuple(workers.values())


def _module_level(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's statements, also inside ``if`` / ``try`` (``if TYPE_CHECKING:``), not in functions or classes."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.TryStar)):
            for block in (node.body, node.orelse, *(h.body for h in getattr(node, "handlers", ()))):
                yield from _module_level(block)
            if isinstance(node, (ast.Try, ast.TryStar)):
                yield from _module_level(node.finalbody)


def _returned_names(value: ast.expr | None) -> list[str]:
    """The names a ``return`` gives back: ``return X``, ``return A if c else B``."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.IfExp):
        return _returned_names(value.body) + _returned_names(value.orelse)
    return []


def _defining_module(tree: _Tree, dotted: str, name: str, hops: int = 0) -> tuple[str, str]:
    """Where ``name``, imported from ``dotted``, is defined: a package that
    re-exports it is followed (the gate names a class by its defining module).
    A module the tree lacks is taken at its word."""
    module = tree.module(dotted)
    if module is None or hops > 3:
        return dotted, name
    for node in _module_level(module.tree.body):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return dotted, name
    for node in _module_level(module.tree.body):
        if isinstance(node, ast.ImportFrom) and (source := _import_source(module, node)):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return _defining_module(tree, source, alias.name, hops + 1)
    return dotted, name


# -- the whole contract -----------------------------------------------------------------


def extract_contract(source: SglangSource) -> Contract:
    """The contract of ``source``'s release, read from its own files."""
    tree = _Tree(source.root)
    if not tree.srt.is_dir():
        raise GateError(f"{source.root} holds no sglang/srt: not an sglang source tree")
    walker = _Walker(tree)
    walker.wanted_call.append(("create_worker", ""))
    walker.tokens.add("create_worker")
    for method in _registry_methods(tree):
        walker.wanted_call.append(("registry", method))
        walker.tokens.add(method)
    _walk_scheduler_side(tree, walker)
    spec_worker = _finish(walker.raw)
    if not spec_worker:
        raise GateError(
            f"found no use of the spec worker in {tree.srt}/managers: not an sglang release with speculative "
            f"workers? supported: {OLDEST} to {NEWEST}, the oldest release the gate can read: {OLDEST_READABLE}"
        )
    constructor_keywords, constructor_site = _constructor(walker)
    if constructor_site is None:
        constructor_keywords, constructor_site = _registry_constructor(walker)
    factory_keywords, factory_site, built = _draft_factory(tree)
    return Contract(
        release=source.release,
        source=str(source.root),
        spec_worker=spec_worker,
        defaults=_defaults(tree),
        constructor_keywords=constructor_keywords,
        constructor_site=constructor_site,
        draft_factory_keywords=factory_keywords,
        draft_factory_site=factory_site,
        built_draft=built,
        built_in_workers=_built_in_workers(tree),
    )
