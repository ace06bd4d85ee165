"""Registrations: which classes a plugin hands sglang's scheduler to build, read from its source.

sglang 0.5.23 builds a plugin's spec worker in
``Scheduler.maybe_init_draft_worker`` (``managers/scheduler.py``)::

    DraftWorkerClass = self.spec_algorithm.create_worker(self.server_args)
    self.draft_worker = DraftWorkerClass(**draft_worker_kwargs)

where ``spec_algorithm`` is what ``SpeculativeAlgorithm.register(name, *,
supports_overlap=False, validate_server_args=None, spec_class=CustomSpecAlgo)``
stored (``speculative/spec_info.py`` -> ``spec_registry.register_algorithm``):
``spec_class(name=, factory=, supports_overlap=, ...)``, whose
``create_worker(server_args)`` (``spec_registry.CustomSpecAlgo.create_worker``)
checks the overlap flag and returns ``self.factory(server_args)``.

So a class is instantiated by the scheduler when a factory handed to
``register`` returns it, or when the ``spec_class``'s own ``create_worker``
returns it. This module reads:

* ``register`` calls, as a decorator of the factory (``@SpeculativeAlgorithm.register(...)``)
  or applied to one (``SpeculativeAlgorithm.register(...)(factory)``, a
  function or a lambda), wherever they are written (inside a ``register()``
  entry point too, with the imports that function makes);
* the factory's returns: class references, both arms of a conditional, a
  local name assigned one of those;
* ``spec_class``: whether its ``create_worker`` replaces the base one without
  delegating to it (then the overlap check is skipped), what it returns
  (``self.factory(...)``, ``super().create_worker(...)``, a
  ``functools.partial`` of either, whose keywords the scheduler's call then
  supplies), and which ``supports_*`` predicates it turns on;
* a registry decorator of the plugin's own (``@my_registry("NAME",
  supports_overlap=True)`` on a worker class) where the plugin's ``register``
  call takes its keywords from a mapping (``**options``): the decorated class
  is registered with the decorator's literal keywords.

Nothing here imports the plugin.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from spec_protocols.gate._discovery._source_index import ModuleSource, SourceIndex
from spec_protocols.gate._model import Registration
from spec_protocols.gate._source import absolute_module, body_nodes, dotted_name

__all__ = ["REGISTER_FUNCTIONS", "Registered", "registrations"]

#: The callables that register a plugin algorithm (``SpeculativeAlgorithm.register``
#: is the public one; ``register_algorithm`` the storage it calls).
REGISTER_FUNCTIONS = frozenset(
    {
        "sglang.srt.speculative.spec_info.SpeculativeAlgorithm.register",
        "sglang.srt.speculative.spec_registry.register_algorithm",
    }
)
#: sglang's algorithm class a ``spec_class`` derives from, whose ``create_worker`` checks the overlap flag.
CUSTOM_SPEC_ALGO = "sglang.srt.speculative.spec_registry.CustomSpecAlgo"
_PARTIALS = frozenset({"functools.partial"})
#: The keyword-only parameters of ``register`` (its flags), as written at 0.5.23.
_REGISTER_KEYWORDS = frozenset({"supports_overlap", "validate_server_args", "spec_class"})
_CREATE_WORKER = "create_worker"
_FACTORY_ATTRIBUTE = "factory"


@dataclass(frozen=True, slots=True)
class Registered:
    """One registration and the classes (qualified names) it hands the scheduler."""

    registration: Registration
    classes: tuple[str, ...]


def registrations(index: SourceIndex, module: ModuleSource) -> list[Registered]:
    """Every registration written in ``module``, with the classes each reaches."""
    return _Reader(index, module).read()


@dataclass
class _Scope:
    """Names bound in one function (or the module): its imports and its plain assignments."""

    imports: dict[str, str] = field(default_factory=dict[str, str])
    assigned: dict[str, list[ast.expr]] = field(default_factory=dict[str, list[ast.expr]])
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(
        default_factory=dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    )


def _scope_of(module: ModuleSource, body: Iterable[ast.stmt]) -> _Scope:
    """The names ``body`` binds itself (nested functions' bodies excluded)."""
    scope = _Scope()
    for node in body_nodes(body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                scope.imports[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(module.package, node.module, node.level)
            if base is not None:
                scope.imports.update((a.asname or a.name, f"{base}.{a.name}") for a in node.names if a.name != "*")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    scope.assigned.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            scope.functions[node.name] = node
    return scope


class _Reader:
    """Reads one module's registrations."""

    def __init__(self, index: SourceIndex, module: ModuleSource) -> None:
        self.index = index
        self.module = module
        self.top = _scope_of(module, module.tree.body)
        self.found: list[Registered] = []
        self.unpacked = False

    # -- names ---------------------------------------------------------------

    def full_name(self, dotted: str, scopes: Sequence[_Scope]) -> str | None:
        """What ``dotted`` names, as a dotted path from its defining module:
        a class the index resolves (``pkg.mod.Class.attr`` for an attribute of
        one), else the import it comes from, innermost scope first."""
        head, _, rest = dotted.partition(".")
        for scope in reversed(scopes):
            if head in scope.imports:
                return self._canonical(scope.imports[head] + (f".{rest}" if rest else ""))
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            resolved = self.index.resolve(self.module, ".".join(parts[:cut]))
            if resolved is not None:
                return ".".join([resolved, *parts[cut:]])
        if head in self.module.imports:
            return self._canonical(self.module.imports[head] + (f".{rest}" if rest else ""))
        return None

    def _canonical(self, full: str) -> str:
        """``full`` with its longest class prefix followed through re-exports (sglang's own when it is readable)."""
        parts = full.split(".")
        if parts[0] in sys.stdlib_module_names:
            return full  # functools.partial: never read the standard library from source
        for cut in range(len(parts), 1, -1):
            found = self.index.canonical(".".join(parts[:cut]))
            if found is not None:
                return ".".join([found, *parts[cut:]])
        return full

    def class_of(self, expr: ast.expr, scopes: Sequence[_Scope]) -> str | None:
        """The class (defined in a module the index read) a reference names; ``None`` otherwise."""
        dotted = dotted_name(expr) if isinstance(expr, ast.Name | ast.Attribute) else None
        if dotted is None:
            return None
        full = self.full_name(dotted, scopes)
        return full if full is not None and self.index.class_def(full) is not None else None

    # -- registrations ---------------------------------------------------------

    def read(self) -> list[Registered]:
        self._walk(self.module.tree.body, [self.top])
        if self.unpacked:
            self._decorated_registry([self.top])
        return self.found

    def _walk(self, body: Iterable[ast.stmt], scopes: list[_Scope]) -> None:
        for node in body_nodes(body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [*scopes, _scope_of(self.module, node.body)]
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Call) and self._is_register(decorator, inner):
                        self._add(decorator, node, inner)
                self._walk(node.body, inner)
            elif isinstance(node, ast.ClassDef):
                self._walk(node.body, scopes)
            elif isinstance(node, ast.Lambda):
                self._walk([ast.Expr(node.body)], scopes)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and self._is_register(node.func, scopes):
                # register(...)(factory)
                factory = node.args[0] if node.args else None
                self._add(node.func, self._factory(factory, scopes), scopes)

    def _is_register(self, call: ast.Call, scopes: Sequence[_Scope]) -> bool:
        dotted = dotted_name(call.func)
        return dotted is not None and self.full_name(dotted, scopes) in REGISTER_FUNCTIONS

    def _factory(self, expr: ast.expr | None, scopes: Sequence[_Scope]) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
        if isinstance(expr, ast.Lambda):
            return expr
        if isinstance(expr, ast.Name):
            for scope in reversed(scopes):
                if expr.id in scope.functions:
                    return scope.functions[expr.id]
        return None

    def _add(
        self, call: ast.Call, factory: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None, scopes: list[_Scope]
    ) -> None:
        name_node = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "name"), None)
        if isinstance(name_node, ast.Constant) and isinstance(name_node.value, str):
            name = name_node.value
        else:
            name = ast.unparse(name_node) if name_node is not None else "?"
        flags, dynamic, spec_expr = _keywords(call.keywords)
        self.unpacked = self.unpacked or "**" in dynamic
        classes = self._returns(factory, scopes) if factory is not None else []
        spec = self.class_of(spec_expr, scopes) if spec_expr is not None else None
        registration = Registration(
            name,
            f"{self.module.file}:{call.lineno}",
            flags,
            dynamic,
            spec,
            spec_class_text=ast.unparse(spec_expr) if spec_expr is not None else None,
            factory=self._factory_name(factory),
        )
        if spec is not None:
            registration, classes = _SpecClass(self, spec).apply(registration, classes)
        self.found.append(Registered(registration, tuple(dict.fromkeys(classes))))
        for builder, built in self._builders(factory, scopes) if factory is not None and spec is None else ():
            self.found.append(Registered(replace(registration, builder=builder), (built,)))

    def _factory_name(self, factory: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None) -> str | None:
        """The dotted name of a factory the module defines at its top level
        (what an importer can name); ``None`` for any other."""
        if isinstance(factory, ast.FunctionDef | ast.AsyncFunctionDef) and self.top.functions.get(factory.name) is factory:
            return f"{self.module.name}.{factory.name}"
        return None

    def _builders(
        self, factory: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, scopes: list[_Scope]
    ) -> Iterator[tuple[str, str]]:
        """``(builder, class)`` for each module-level function the factory
        returns that builds a class: ``return _build``, with ``_build``'s
        returns calling the class (``return Worker(...)``). The scheduler calls
        what the factory returns with its keywords
        (scheduler.py: maybe_init_draft_worker), so the function takes that
        call, and the class is built by the function."""
        values = [factory.body] if isinstance(factory, ast.Lambda) else [
            n.value for n in body_nodes(factory.body) if isinstance(n, ast.Return) and n.value is not None
        ]
        for value in values:
            if not isinstance(value, ast.Name) or value.id not in self.top.functions:
                continue
            builder = self.top.functions[value.id]
            inner = [self.top, _scope_of(self.module, builder.body)]
            for node in body_nodes(builder.body):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                    for built in self.classes_of(node.value.func, inner):
                        yield f"{self.module.name}.{builder.name}", built

    def _returns(self, factory: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, scopes: list[_Scope]) -> list[str]:
        """The classes a factory's returns name."""
        if isinstance(factory, ast.Lambda):
            values = [factory.body]
            inner = scopes
        else:
            inner = [*scopes, _scope_of(self.module, factory.body)]
            values = [n.value for n in body_nodes(factory.body) if isinstance(n, ast.Return) and n.value is not None]
        return [c for value in values for c in self.classes_of(value, inner)]

    def classes_of(self, expr: ast.expr, scopes: Sequence[_Scope], depth: int = 0) -> list[str]:
        """The classes an expression may evaluate to: a reference, a conditional's
        arms, ``a or b``, a local name's assigned values."""
        if depth > 8:
            return []
        if isinstance(expr, ast.IfExp):
            return [*self.classes_of(expr.body, scopes, depth + 1), *self.classes_of(expr.orelse, scopes, depth + 1)]
        if isinstance(expr, ast.BoolOp):
            return [c for v in expr.values for c in self.classes_of(v, scopes, depth + 1)]
        if isinstance(expr, ast.Name) and scopes and expr.id in scopes[-1].assigned:
            return [c for v in scopes[-1].assigned[expr.id] for c in self.classes_of(v, scopes, depth + 1)]
        found = self.class_of(expr, scopes)
        return [found] if found is not None else []

    def _decorated_registry(self, scopes: Sequence[_Scope]) -> None:
        """Classes decorated by a registry of the plugin's own (a function of
        this module called with a name and ``register``'s keywords), where a
        ``register`` call here takes its keywords from a mapping: each is
        registered with the decorator's literal keywords."""
        for info in self.module.classes.values():
            for decorator in info.node.decorator_list:
                if not isinstance(decorator, ast.Call) or not isinstance(decorator.func, ast.Name):
                    continue
                if decorator.func.id not in self.top.functions:
                    continue
                if not decorator.args or not any(k.arg in _REGISTER_KEYWORDS for k in decorator.keywords):
                    continue
                qualified = f"{self.module.name}.{info.qualname}"
                self._add(decorator, None, list(scopes))
                last = self.found.pop()
                self.found.append(Registered(last.registration, (*last.classes, qualified)))


def _keywords(
    keywords: Iterable[ast.keyword],
) -> tuple[tuple[tuple[str, bool | int | float | str | None], ...], tuple[str, ...], ast.expr | None]:
    """A registration's keywords: the literals, the names of the others
    (``"**"`` for an unpacked mapping), and the ``spec_class`` expression."""
    flags: list[tuple[str, bool | int | float | str | None]] = []
    dynamic: list[str] = []
    spec: ast.expr | None = None
    for keyword in keywords:
        if keyword.arg is None:
            dynamic.append("**")
            continue
        if keyword.arg == "name":
            continue
        if keyword.arg == "spec_class":
            spec = keyword.value
            continue
        value = keyword.value
        if isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, bool | int | float | str)):
            flags.append((keyword.arg, value.value))
        else:
            dynamic.append(keyword.arg)
    return tuple(flags), tuple(dynamic), spec


class _SpecClass:
    """What a plugin's ``spec_class`` changes: its ``create_worker`` and its ``supports_*`` predicates."""

    def __init__(self, reader: _Reader, qualified: str) -> None:
        self.reader = reader
        self.qualified = qualified

    def _methods(self) -> dict[str, tuple[ModuleSource, ast.FunctionDef | ast.AsyncFunctionDef]]:
        """Each method the class and its bases below ``CustomSpecAlgo`` define, the nearest first."""
        index = self.reader.index
        found: dict[str, tuple[ModuleSource, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for owner in (self.qualified, *index.ancestry(self.qualified)):
            if owner == CUSTOM_SPEC_ALGO:
                break
            located = index.class_def(owner)
            if located is None:
                continue
            module, info = located
            for stmt in info.node.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.setdefault(stmt.name, (module, stmt))
        return found

    def apply(self, registration: Registration, factory_classes: list[str]) -> tuple[Registration, list[str]]:
        methods = self._methods()
        capabilities = tuple(
            name for name, (_, node) in sorted(methods.items()) if name.startswith("supports_") and not _returns_only_false(node)
        )
        create = methods.get(_CREATE_WORKER)
        if create is None:
            return _with(registration, capabilities=capabilities), factory_classes
        module, node = create
        delegates = any(_is_base_create_worker(n) for n in ast.walk(node))
        scopes = [_scope_of(module, module.tree.body), _scope_of(module, node.body)]
        classes: list[str] = []
        bound: list[str] = []
        for value in (n.value for n in body_nodes(node.body) if isinstance(n, ast.Return) and n.value is not None):
            classes.extend(self._built(value, scopes, factory_classes, bound))
        return (
            _with(registration, capabilities=capabilities, replaces=not delegates, bound=tuple(dict.fromkeys(bound))),
            classes,
        )

    def _built(self, expr: ast.expr, scopes: list[_Scope], factory_classes: list[str], bound: list[str], depth: int = 0) -> list[str]:
        """The classes a ``create_worker`` return builds, and (into ``bound``) the keywords a partial binds."""
        if depth > 8:
            return []
        if isinstance(expr, ast.IfExp):
            return [*self._built(expr.body, scopes, factory_classes, bound, depth + 1), *self._built(expr.orelse, scopes, factory_classes, bound, depth + 1)]
        if isinstance(expr, ast.Call):
            callee = dotted_name(expr.func)
            if callee is not None and self.reader.full_name(callee, scopes) in _PARTIALS and expr.args:
                bound.extend(k.arg for k in expr.keywords if k.arg is not None)
                return self._built(expr.args[0], scopes, factory_classes, bound, depth + 1)
            if _is_base_create_worker(expr) or _is_factory_call(expr):
                return list(factory_classes)
            return []
        if isinstance(expr, ast.Name) and expr.id in scopes[-1].assigned:
            return [c for v in scopes[-1].assigned[expr.id] for c in self._built(v, scopes, factory_classes, bound, depth + 1)]
        return self.reader.classes_of(expr, scopes)


def _with(
    registration: Registration, *, capabilities: tuple[str, ...], replaces: bool = False, bound: tuple[str, ...] = ()
) -> Registration:
    return replace(registration, replaces_create_worker=replaces, capabilities=capabilities, bound_keywords=bound)


def _returns_only_false(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether every ``return`` of a predicate is a literal ``False`` (none: it returns ``None``)."""
    values = [n.value for n in body_nodes(node.body) if isinstance(n, ast.Return)]
    return all(v is None or (isinstance(v, ast.Constant) and v.value in (False, None, 0)) for v in values)


def _is_base_create_worker(node: ast.AST) -> bool:
    """``super().create_worker(...)`` or ``CustomSpecAlgo.create_worker(self, ...)``
    (any ``X.create_worker(self, ...)``): the base's, with its overlap check."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr != _CREATE_WORKER:
        return False
    owner = node.func.value
    if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
        return True
    return bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id == "self" and not (
        isinstance(owner, ast.Name) and owner.id == "self"
    )


def _is_factory_call(node: ast.Call) -> bool:
    """``self.factory(...)``: the registered factory, called without the base's check."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == _FACTORY_ATTRIBUTE
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    )
