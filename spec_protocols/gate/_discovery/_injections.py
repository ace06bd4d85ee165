"""Injections: every value a target module gives ``draft_worker_cls``, and what each is.

Injections are found wherever the name ``draft_worker_cls`` is given a
value: a call keyword, a ``**{...}`` or any dict literal key, a
``x["draft_worker_cls"] = ...`` assignment, a class attribute, a parameter
default. A parameter forwarded unchanged (``draft_worker_cls=draft_worker_cls``)
is not an injection: its default and its callers' keywords are.

A plain reference to a class the index resolves is that class (checked as a
``DraftWorkerFactory``); any other expression (``self.attr``, a
``functools.partial``, a factory function, a lambda, a class defined in a
function, a conditional expression) is an :class:`InjectionSite`, judged in
place by the static checkers (:mod:`spec_protocols.gate._harness._sites`).

``self.attr`` (or ``cls.attr``) in a method is followed to what the class
assigns that attribute (:func:`attribute_classes`): a class attribute
``draft_cls: type[TpModelWorker] = LegacyDraftWorker`` in the class, a base
or a subclass, and ``self.draft_cls = X`` in any of their methods. A declared
``type[Base]`` hides the value from the static checkers (``type[Sub]`` is
assignable to it whatever ``Sub.__init__`` takes); the value is what
``build_draft_tp_worker`` calls.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from spec_protocols.gate._discovery._source_index import ModuleSource, SourceIndex
from spec_protocols.gate._model import InjectionSite
from spec_protocols.gate._source import dotted_name

__all__ = ["INJECTION_NAME", "Injection", "attribute_classes", "classify_injection", "injections", "may_inject", "number_sites"]

INJECTION_NAME = "draft_worker_cls"


@dataclass(frozen=True, slots=True)
class Injection:
    """One value given to ``draft_worker_cls`` in a target module."""

    module: ModuleSource
    scope: str
    value: ast.expr


def injections(module: ModuleSource) -> Iterator[Injection]:
    """Every value given to ``draft_worker_cls`` in a module, with its scope."""
    yield from _InjectionFinder(module).find()


class _InjectionFinder(ast.NodeVisitor):
    """Walks a module for the values given to ``draft_worker_cls``, keeping the scope each is in."""

    def __init__(self, module: ModuleSource) -> None:
        self.module = module
        self.scope: list[str] = []
        #: parameters of the enclosing functions, innermost last
        self.parameters: list[frozenset[str]] = []
        self.found: list[Injection] = []

    def find(self) -> list[Injection]:
        self.visit(self.module.tree)
        return self.found

    def _add(self, value: ast.expr, scope: str | None = None) -> None:
        if isinstance(value, ast.Name) and self.parameters and value.id in self.parameters[-1]:
            return  # forwarded unchanged: judged at its default and its callers
        self.found.append(Injection(self.module, scope or ".".join(self.scope) or "<module>", value))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self.scope.append(node.name)
        for stmt in node.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
            value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
            if value is not None and any(isinstance(t, ast.Name) and t.id == INJECTION_NAME for t in targets):
                self._add(value)
            self.visit(stmt)
        self.scope.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args
        if not isinstance(node, ast.Lambda):
            for expr in node.decorator_list:
                self.visit(expr)
        positional = [*args.posonlyargs, *args.args]
        own_scope = ".".join([*self.scope, node.name]) if not isinstance(node, ast.Lambda) else None
        defaults = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
        defaults += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for arg, default in defaults:
            # Defaults are evaluated where the function is defined.
            self.visit(default)
            is_sentinel = isinstance(default, ast.Constant) and default.value is None
            if arg.arg == INJECTION_NAME and not is_sentinel:
                self._add(default, own_scope)
        names = {a.arg for a in [*positional, *args.kwonlyargs]}
        names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
        if not isinstance(node, ast.Lambda):
            self.scope.append(node.name)
        self.parameters.append(frozenset(names))
        body = node.body if isinstance(node.body, list) else [node.body]
        for stmt in body:
            self.visit(stmt)
        self.parameters.pop()
        if not isinstance(node, ast.Lambda):
            self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._function(node)

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg == INJECTION_NAME:
                self._add(keyword.value)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        # `**{"draft_worker_cls": X}`, `kwargs = {"draft_worker_cls": X}`
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and key.value == INJECTION_NAME:
                self._add(value)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        # kwargs["draft_worker_cls"] = X
        for target in node.targets:
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.slice, ast.Constant)
                and target.slice.value == INJECTION_NAME
            ):
                self._add(node.value)
        self.generic_visit(node)


def classify_injection(index: SourceIndex, injection: Injection) -> str | InjectionSite | None:
    """A plain reference to a class: its qualified name. Anything else: a site."""
    value = injection.value
    module = injection.module
    dotted = dotted_name(value) if isinstance(value, ast.Name | ast.Attribute) else None
    if dotted is not None and not dotted.startswith(("self.", "cls.")):
        resolved = index.resolve(module, dotted)
        if resolved is not None and index.class_def(resolved) is not None:
            return resolved
    segment = ast.get_source_segment(module.source, value) or ast.unparse(value)
    assert value.end_lineno is not None and value.end_col_offset is not None
    return InjectionSite(
        target=f"{module.name}.{injection.scope}:{INJECTION_NAME}",
        module=module.name,
        file=module.file,
        line=value.lineno,
        col=value.col_offset,
        end_line=value.end_lineno,
        end_col=value.end_col_offset,
        text=" ".join(segment.split()),
    )


def number_sites(sites: Sequence[InjectionSite]) -> list[InjectionSite]:
    """``#2``, ``#3`` for further sites in one scope, in source order."""
    ordered = sorted(sites, key=lambda s: (s.module, s.line, s.col))
    seen: dict[str, int] = {}
    numbered: list[InjectionSite] = []
    for site in ordered:
        count = seen.get(site.target, 0) + 1
        seen[site.target] = count
        numbered.append(replace(site, target=f"{site.target}#{count}") if count > 1 else site)
    return numbered


def attribute_classes(index: SourceIndex, injection: Injection) -> tuple[tuple[str, ...], bool]:
    """For ``self.attr`` / ``cls.attr`` injected in a method of a class of the
    module: the classes every assignment of ``attr`` on that class, its bases
    and its subclasses in the module gives (class bodies and ``self.attr =``
    in their methods), and whether every assignment named a class the index
    resolves (``False`` also when none was found, or the value is no such
    attribute)."""
    value = injection.value
    if isinstance(value, ast.Name):
        return _local_classes(index, injection, value.id)
    if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id in ("self", "cls")):
        return (), False
    module = injection.module
    parts = injection.scope.split(".")
    owner = next((".".join(parts[:cut]) for cut in range(len(parts), 0, -1) if ".".join(parts[:cut]) in module.classes), None)
    if owner is None:
        return (), False
    qualified = f"{module.name}.{owner}"
    related = [qualified, *index.ancestry(qualified)]
    related += [f"{module.name}.{q}" for q in module.classes if qualified in index.ancestry(f"{module.name}.{q}")]
    found: list[str] = []
    complete = True
    seen_any = False
    for name in related:
        located = index.class_def(name)
        if located is None:
            continue
        for assigned in _attribute_values(located[1].node, value.attr):
            seen_any = True
            dotted = dotted_name(assigned) if isinstance(assigned, ast.Name | ast.Attribute) else None
            resolved = index.resolve(located[0], dotted) if dotted is not None else None
            if resolved is not None and index.class_def(resolved) is not None:
                found.append(resolved)
            else:
                complete = False
    return tuple(dict.fromkeys(found)), complete and seen_any and bool(found)


def _attribute_values(node: ast.ClassDef, attribute: str) -> Iterator[ast.expr]:
    """Each value a class assigns ``attribute``: in its body (``x = V``,
    ``x: T = V``) and as ``self.x = V`` in its methods. ``None`` is a
    placeholder, not a value injected."""
    for stmt in node.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == attribute for t in targets) and not _is_none(stmt.value):
                yield stmt.value
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(stmt):
                if isinstance(inner, ast.Assign) and not _is_none(inner.value):
                    for target in inner.targets:
                        if (
                            isinstance(target, ast.Attribute)
                            and target.attr == attribute
                            and isinstance(target.value, ast.Name)
                            and target.value.id == "self"
                        ):
                            yield inner.value


def _local_classes(index: SourceIndex, injection: Injection, name: str) -> tuple[tuple[str, ...], bool]:
    """For a name local to the function the injection is in (``draft:
    type[TpModelWorker] = Legacy``, then ``draft_worker_cls=draft``): the
    classes its assignments there name, and whether every one did."""
    function = _function_at(injection.module.tree, injection.scope)
    if function is None:
        return (), False
    found: list[str] = []
    complete = True
    for node in _own_statements(function.body):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        dotted = dotted_name(node.value) if isinstance(node.value, ast.Name | ast.Attribute) else None
        resolved = index.resolve(injection.module, dotted) if dotted is not None else None
        if resolved is not None and index.class_def(resolved) is not None:
            found.append(resolved)
        else:
            complete = False
    return tuple(dict.fromkeys(found)), complete and bool(found)


def _function_at(tree: ast.Module, scope: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose qualified name is ``scope`` (``Class.method``, ``outer.inner``)."""
    body: list[ast.stmt] = tree.body
    found: ast.stmt | None = None
    for part in scope.split("."):
        found = next(
            (
                n
                for n in _own_statements(body)
                if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and n.name == part
            ),
            None,
        )
        if not isinstance(found, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        body = found.body
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a function body, nested blocks included, nested functions and classes not."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for child in reversed(list(ast.iter_child_nodes(stmt))):
            if isinstance(child, ast.stmt):
                stack.append(child)


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


#: The callables whose result wraps the class they are given (its call is not the class's own).
_WRAPPERS = frozenset({"functools.partial"})


def may_inject(index: SourceIndex, injection: Injection) -> tuple[str, ...] | None:
    """What an injection discovery could not follow may give
    ``build_draft_tp_worker`` as the class itself: ``()`` for a wrapper (a
    lambda, a ``functools.partial``, a factory function passed by name:
    sglang calls the wrapper, which builds the class its own way; the static
    checkers judge it in place), the classes a called helper's returns name
    (``pick(server_args)``), or ``None``: anything its declared type admits."""
    value = injection.value
    module = injection.module
    if isinstance(value, ast.Lambda):
        return ()
    dotted = dotted_name(value) if isinstance(value, ast.Name | ast.Attribute) else None
    if dotted is not None and _module_function(module, dotted) is not None:
        return ()
    if isinstance(value, ast.IfExp | ast.BoolOp):
        named = _classes_named(index, module, value)
        return tuple(dict.fromkeys(named)) if named else None
    if isinstance(value, ast.Call):
        callee = dotted_name(value.func)
        if callee is not None and _imported_as(module, callee) in _WRAPPERS:
            return ()
        function = _module_function(module, callee) if callee is not None else None
        if function is not None:
            returned = [r.value for r in _own_statements(function.body) if isinstance(r, ast.Return) and r.value is not None]
            found = [c for expr in returned for c in _classes_named(index, module, expr)]
            return tuple(dict.fromkeys(found)) if found else None
    return None


def _imported_as(module: ModuleSource, dotted: str) -> str:
    """``dotted`` with its first name replaced by what the module imported as it (``partial`` -> ``functools.partial``)."""
    head, _, rest = dotted.partition(".")
    full = module.imports.get(head, head)
    return f"{full}.{rest}" if rest else full


def _module_function(module: ModuleSource, dotted: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """A function the module defines at its top level, by name."""
    return next(
        (
            n
            for n in _own_statements(module.tree.body)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == dotted
        ),
        None,
    )


def _classes_named(index: SourceIndex, module: ModuleSource, expr: ast.expr) -> list[str]:
    """The classes an expression names as values: a reference, a conditional's arms, ``a or b``."""
    if isinstance(expr, ast.IfExp):
        return [*_classes_named(index, module, expr.body), *_classes_named(index, module, expr.orelse)]
    if isinstance(expr, ast.BoolOp):
        return [c for v in expr.values for c in _classes_named(index, module, v)]
    dotted = dotted_name(expr) if isinstance(expr, ast.Name | ast.Attribute) else None
    resolved = index.resolve(module, dotted) if dotted is not None else None
    return [resolved] if resolved is not None and index.class_def(resolved) is not None else []
