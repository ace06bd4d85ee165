"""What sglang does with what a spec worker's ``forward_batch_generation`` returns, read from the release's source.

On the overlap loop, ``Scheduler.run_batch`` (managers/scheduler.py) calls
``self.model_worker.forward_batch_generation(batch, **fwd_kwargs)`` and then
uses the value: it reads ``batch_result.extra_keep_alive_refs`` and
``delay_sample_func``, stores ``copy_done``, relays the draft input
(``_relay_forward_payload``, ``RelayPayload.from_draft_input`` in
managers/overlap_utils.py), then sets ``batch.spec_info =
batch_result.next_draft_input`` and reads and stores attributes on it
(0.5.23: scheduler.py:4751-4755). The target worker's own result leaves
``next_draft_input`` None (managers/utils.py), so a worker that hands it back
unchanged raises ``AttributeError`` at its first batch.

:func:`overlap_result_uses` reads those uses from the release's own source,
not from a table: the statements of ``run_batch``'s overlap branch after the
call, the attribute reads and stores on the result and on whatever is made
an alias of a part of it (``batch.spec_info``), following the scheduler's own
methods and the classes it imports from sglang one call deep, with the
conditions they run under that the value itself decides (``X is None``,
``X is not None``) or the algorithm object does (``spec_algorithm.is_ngram()``).
:func:`judge` holds a returned value to them, in the order sglang makes them.

Pure ``ast``: nothing of sglang is imported here.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = ["Condition", "Use", "Verdict", "failures", "judge", "overlap_result_uses"]

#: How deep the extraction follows a call that is handed the result (run_batch -> _relay_forward_payload -> RelayPayload.from_draft_input).
_DEPTH = 2


@dataclass(frozen=True, slots=True)
class Condition:
    """When a use happens: ``none``/``not_none``: the value at ``path`` is (not) None;
    ``predicate``/``not_predicate``: the algorithm object's ``name()`` is true (false)."""

    kind: Literal["none", "not_none", "predicate", "not_predicate"]
    path: tuple[str, ...] = ()
    name: str = ""

    def inverse(self) -> Condition:
        flip: Mapping[str, Literal["none", "not_none", "predicate", "not_predicate"]] = {
            "none": "not_none", "not_none": "none", "predicate": "not_predicate", "not_predicate": "predicate"
        }
        return Condition(flip[self.kind], self.path, self.name)


@dataclass(frozen=True, slots=True)
class Use:
    """One read (or store) sglang makes of the result: attribute ``attr`` of the
    value at ``path`` (``()``: the result; ``("next_draft_input",)``: its draft input)."""

    path: tuple[str, ...]
    attr: str
    store: bool
    #: sglang's line that makes it, relative to ``sglang/srt`` ("managers/scheduler.py:4753").
    site: str
    conditions: tuple[Condition, ...] = ()

    def words(self) -> str:
        on = ".".join(("batch_result", *self.path))
        return f"{'stores' if self.store else 'reads'} {on}.{self.attr}"


# -- extraction ---------------------------------------------------------------


@dataclass
class _Module:
    path: Path
    srt: Path
    tree: ast.Module
    source_lines: list[str] = field(default_factory=list[str])

    @property
    def rel(self) -> str:
        return self.path.relative_to(self.srt).as_posix()

    def function(self, name: str) -> ast.FunctionDef | None:
        """A method ``name`` of one of this module's classes (the scheduler's mixins live in others: not followed)."""
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == name:
                        return item
        return None

    def imported_class(self, name: str) -> tuple[str, str] | None:
        """The sglang module a class ``name`` is imported from here (``from sglang.X import name``)."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sglang."):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        return node.module, alias.name
        return None


def _load(path: Path, srt: Path, cache: dict[Path, _Module]) -> _Module | None:
    if path not in cache:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            return None
        cache[path] = _Module(path, srt, tree)
    return cache[path]


def overlap_result_uses(srt: Path) -> tuple[Use, ...]:
    """The uses of the overlap branch's result in the release under ``srt``
    (``.../sglang/srt``); empty where its ``run_batch`` has no such branch."""
    cache: dict[Path, _Module] = {}
    scheduler = _load(srt / "managers" / "scheduler.py", srt, cache)
    if scheduler is None:
        return ()
    run_batch = scheduler.function("run_batch")
    if run_batch is None:
        return ()
    branch = _overlap_branch(run_batch)
    if branch is None:
        return ()
    walker = _Walker(scheduler, cache, 0)
    walker.block(branch.body, {}, ())
    # The result and its draft input: what a worker builds. Deeper values
    # (a tensor's ``reshape``) are the draft input's own business.
    found: dict[tuple[object, ...], Use] = {}
    for use in walker.uses:
        if len(use.path) <= 1:
            found.setdefault((use.path, use.attr, use.store, use.conditions), use)
    return tuple(found.values())


def _overlap_branch(run_batch: ast.FunctionDef) -> ast.If | None:
    """``if self.enable_overlap:`` in ``run_batch``: the overlap loop's forward."""
    for node in ast.walk(run_batch):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "self.enable_overlap":
            return node
    return None


def _forward_call(value: ast.expr) -> bool:
    """``self.model_worker.forward_batch_generation(...)``: the scheduler's call of the spec worker."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "forward_batch_generation"
        and ast.unparse(value.func.value) == "self.model_worker"
    )


class _Walker:
    """The statements of one function, in order, with what holds a part of the result (``env``: expression -> path)."""

    def __init__(self, module: _Module, cache: dict[Path, _Module], depth: int) -> None:
        self.module = module
        self.cache = cache
        self.depth = depth
        self.uses: list[Use] = []

    def path_of(self, node: ast.expr, env: Mapping[str, tuple[str, ...]]) -> tuple[str, ...] | None:
        text = ast.unparse(node)
        if text in env:
            return env[text]
        if isinstance(node, ast.Attribute):
            base = self.path_of(node.value, env)
            return None if base is None else (*base, node.attr)
        return None

    def block(self, body: Sequence[ast.stmt], env: dict[str, tuple[str, ...]], conditions: tuple[Condition, ...]) -> None:
        for statement in body:
            conditions = self.statement(statement, env, conditions)

    def statement(self, node: ast.stmt, env: dict[str, tuple[str, ...]], conditions: tuple[Condition, ...]) -> tuple[Condition, ...]:
        """Records ``node``'s uses; the conditions the statements after it run under."""
        if isinstance(node, ast.If):
            self.expression(node.test, env, conditions)
            condition = self.condition(node.test, env)
            inner = (*conditions, condition) if condition else conditions
            other = (*conditions, condition.inverse()) if condition else conditions
            self.block(node.body, dict(env), inner)
            self.block(node.orelse, dict(env), other)
            if condition and node.body and isinstance(node.body[-1], (ast.Return, ast.Raise)) and not node.orelse:
                return other  # what follows runs only where the branch did not return
            return conditions
        if isinstance(node, (ast.With, ast.For, ast.While)):
            if isinstance(node, ast.With):
                for item in node.items:
                    self.expression(item.context_expr, env, conditions)
            else:
                self.expression(node.iter if isinstance(node, ast.For) else node.test, env, conditions)
            self.block(node.body, env, conditions)
            if not isinstance(node, ast.With):
                self.block(node.orelse, env, conditions)
            return conditions
        if isinstance(node, ast.Try):
            self.block(node.body, env, conditions)
            for handler in node.handlers:
                self.block(handler.body, env, conditions)
            self.block(node.orelse, env, conditions)
            self.block(node.finalbody, env, conditions)
            return conditions
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if _forward_call(node.value) and isinstance(target, ast.Name):
                self.expression(node.value, env, conditions)
                env[target.id] = ()  # from here on, the result
                return conditions
            self.expression(node.value, env, conditions)
            self.expression(target, env, conditions)
            held = self.path_of(node.value, env)
            name = ast.unparse(target)
            if held is not None:
                env[name] = held  # an alias of a part of the result (batch.spec_info = batch_result.next_draft_input)
            else:
                env.pop(name, None)
            return conditions
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expression(child, env, conditions)
        return conditions

    def condition(self, test: ast.expr, env: Mapping[str, tuple[str, ...]]) -> Condition | None:
        """What the value or the algorithm object decides of ``test``; None for anything else (both branches count)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.condition(test.operand, env)
            return inner.inverse() if inner else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
            path = self.path_of(test.left, env)
            if path is not None and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
                return Condition("none" if isinstance(test.ops[0], ast.Is) else "not_none", path)
        if (
            isinstance(test, ast.Call)
            and not test.args
            and isinstance(test.func, ast.Attribute)
            and isinstance(test.func.value, ast.Attribute)
            and test.func.value.attr == "spec_algorithm"
        ):
            return Condition("predicate", name=test.func.attr)
        return None

    def expression(self, node: ast.expr, env: Mapping[str, tuple[str, ...]], conditions: tuple[Condition, ...]) -> None:
        """The uses in ``node``: reads before stores, in source order; and the calls that hand over a part of the result."""
        reads: list[Use] = []
        stores: list[Use] = []
        for sub in sorted((n for n in ast.walk(node) if isinstance(n, ast.Attribute)), key=lambda n: (n.lineno, n.col_offset)):
            if ast.unparse(sub) in env:
                continue  # an alias itself is not a use of the result
            base = self.path_of(sub.value, env)
            if base is None:
                continue
            store = isinstance(sub.ctx, ast.Store)
            (stores if store else reads).append(Use(base, sub.attr, store, f"{self.module.rel}:{sub.lineno}", conditions))
        self.uses.extend(reads)
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            self.follow(call, env, conditions)
        self.uses.extend(stores)

    def follow(self, call: ast.Call, env: Mapping[str, tuple[str, ...]], conditions: tuple[Condition, ...]) -> None:
        """A call of sglang's own function that is handed a part of the result, one level in."""
        if self.depth >= _DEPTH:
            return
        handed = [(i, self.path_of(a, env)) for i, a in enumerate(call.args)]
        named = [(k.arg, self.path_of(k.value, env)) for k in call.keywords if k.arg]
        if not any(p is not None for _, p in (*handed, *named)):
            return
        found = self.callee(call.func)
        if found is None:
            return
        module, function = found
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        decorators = {ast.unparse(d) for d in function.decorator_list}
        if "staticmethod" not in decorators and params:
            params = params[1:]  # self, or a classmethod's cls
        inner_env: dict[str, tuple[str, ...]] = {}
        for i, path in handed:
            if path is not None and i < len(params):
                inner_env[params[i]] = path
        for name, path in named:
            if path is not None and name:
                inner_env[name] = path
        walker = _Walker(module, self.cache, self.depth + 1)
        walker.block(function.body, inner_env, conditions)
        self.uses.extend(walker.uses)

    def callee(self, func: ast.expr) -> tuple[_Module, ast.FunctionDef] | None:
        """``self.NAME`` (a method of this module's classes) or ``Class.NAME`` (a class of sglang's this module imports)."""
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return None
        owner = func.value.id
        if owner == "self":
            function = self.module.function(func.attr)
            return (self.module, function) if function else None
        imported = self.module.imported_class(owner)
        if imported is None:
            return None
        module_name, class_name = imported
        path = self.module.srt.parent.joinpath(*module_name.split(".")[1:]).with_suffix(".py")
        module = _load(path, self.module.srt, self.cache)
        if module is None:
            return None
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == class_name:
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == func.attr:
                        return module, item
        return None


# -- judging a returned value ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """What became of the returned value: the first use it fails (None: it takes them all), in words."""

    failed: Use | None
    said: str = ""
    #: The uses it was held to (the conditions on the value held).
    checked: int = 0


_MISSING = object()


def _resolve(value: object, path: tuple[str, ...]) -> object:
    for step in path:
        value = getattr(value, step, _MISSING)
        if value is _MISSING or value is None:
            return value
    return value


def judge(value: object, uses: Sequence[Use], predicate: Callable[[str], bool | None]) -> Verdict:
    """``value`` held to ``uses`` in order, as sglang makes them; ``predicate(name)``:
    the algorithm object's ``name()`` (None where it cannot be told: both ways count)."""
    checked = 0
    for use in _applying(value, uses, predicate):
        checked += 1
        said = _failure(use, value)
        if said is not None:
            return Verdict(use, said, checked)
    return Verdict(None, "", checked)


def failures(value: object, uses: Sequence[Use], predicate: Callable[[str], bool | None]) -> list[str]:
    """Every use of ``uses`` that ``value`` fails, in sglang's order, in words
    (:func:`judge` stops at the first, as sglang does). The reads below a part
    that is None are said once, with their sites: the part is what to fill."""
    said: list[str] = []
    below_none: dict[tuple[str, ...], list[Use]] = {}
    for use in _applying(value, uses, predicate):
        if _resolve(value, use.path) is None:
            below_none.setdefault(use.path, []).append(use)
            continue
        failure = _failure(use, value)
        if failure is not None:
            said.append(failure)
    for path, needing in below_none.items():
        on = ".".join(("batch_result", *path))
        sites = ", ".join(dict.fromkeys(f"{u.site} ({'stores' if u.store else 'reads'} .{u.attr})" for u in needing))
        said.append(f"{on} is None, and sglang uses it: {sites}")
    return said


def _applying(value: object, uses: Sequence[Use], predicate: Callable[[str], bool | None]) -> Iterator[Use]:
    """The uses whose conditions hold for ``value`` (and the algorithm object's ``predicate``)."""
    return (use for use in uses if all(_holds(c, value, predicate) for c in use.conditions))


def _failure(use: Use, value: object) -> str | None:
    """Why ``value`` fails ``use``; None where it takes it (or an earlier step is missing, said there)."""
    base = _resolve(value, use.path)
    if base is _MISSING:
        return None
    on = ".".join(("batch_result", *use.path))
    if base is None:
        return f"{use.site} {use.words()}, but {on} is None"
    if use.store:
        try:
            setattr(base, use.attr, getattr(base, use.attr, None))
        except (AttributeError, TypeError) as error:
            return f"{use.site} {use.words()}, which {type(base).__name__} refuses ({type(error).__name__}: {error})"
    elif not _has(base, use.attr):
        return f"{use.site} {use.words()}, which {type(base).__name__} lacks"
    return None


def _has(obj: object, name: str) -> bool:
    try:
        getattr(obj, name)
    except AttributeError:
        return False
    except Exception:  # noqa: BLE001 - a getter that raised otherwise: the member is there
        return True
    return True


def _holds(condition: Condition, value: object, predicate: Callable[[str], bool | None]) -> bool:
    if condition.kind in ("predicate", "not_predicate"):
        told = predicate(condition.name)
        if told is None:
            return True
        return told if condition.kind == "predicate" else not told
    found = _resolve(value, condition.path)
    if found is _MISSING:
        return False
    return (found is None) == (condition.kind == "none")


def describe(uses: Sequence[Use]) -> Iterator[str]:
    """Each use as a line: where, what, and when."""
    for use in uses:
        when = ", ".join(_condition_words(c) for c in use.conditions)
        yield f"{use.site}: {use.words()}" + (f" (when {when})" if when else "")


def _condition_words(condition: Condition) -> str:
    on = ".".join(("batch_result", *condition.path))
    return {
        "none": f"{on} is None",
        "not_none": f"{on} is not None",
        "predicate": f"spec_algorithm.{condition.name}()",
        "not_predicate": f"not spec_algorithm.{condition.name}()",
    }[condition.kind]
