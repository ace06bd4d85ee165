"""Modules that make classes when they run, not with a ``class`` statement.

``NGram3Worker = type("NGram3Worker", (BaseSpecWorker,), {...})``, a class
factory called at module level (``Worker = make_worker(3)``, where
``make_worker`` holds a ``class`` statement or a ``type(...)`` call), a loop
that fills ``globals()``: discovery reads ``class`` statements, and none of
these is one. Whether such a class is a worker is known only once the module
runs; the runtime checker, which imports the module anyway, lists the worker
classes the import made (``_checkers/_runtime/_scan.classes_at_import``).
:func:`builds_classes` says which modules to ask it about: it reads the
source only, and never decides what the classes are.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from spec_protocols.gate._discovery._registrations import REGISTER_FUNCTIONS
from spec_protocols.gate._discovery._source_index import ModuleSource
from spec_protocols.gate._model import Discovery, GateError

__all__ = ["REGISTER_CALL_NAMES", "RUNTIME_BUILT_WORDS", "builds_classes", "require_found", "require_importing"]

#: What a discovery error says of a module that builds its classes at run
#: time, when no checker that imports it was chosen.
RUNTIME_BUILT_WORDS = (
    "has no class statement on a worker base and may build its classes at run time (type(...), a class factory "
    "called at module level), which only an import shows"
)

#: Calls that make a class from their arguments (``type`` with three).
_MAKERS = frozenset({"new_class", "make_dataclass"})


def _callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _makes_class(call: ast.Call) -> bool:
    """``type(name, bases, ns)``, ``types.new_class(...)``, ``dataclasses.make_dataclass(...)``."""
    name = _callee(call)
    if name == "type":
        return len(call.args) == 3
    return name in _MAKERS


def _module_level(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node the module's own code runs at import: its statements and
    their expressions, through ``if``/``try``/``for``/``with``, not into the
    bodies of functions and classes (decorators, bases and defaults run)."""
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            pending.extend([*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)])
        elif isinstance(node, ast.ClassDef):
            pending.extend([*node.decorator_list, *node.bases, *(k.value for k in node.keywords)])
        elif not isinstance(node, ast.Lambda):
            pending.extend(ast.iter_child_nodes(node))


def _factories(tree: ast.Module) -> frozenset[str]:
    """The module's functions that make a class each time they run: a
    ``class`` statement or a class-making call in their body."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = (n for stmt in node.body for n in ast.walk(stmt))
            if any(isinstance(n, ast.ClassDef) or (isinstance(n, ast.Call) and _makes_class(n)) for n in inner):
                found.add(node.name)
    return frozenset(found)


#: The last part of each callable that registers an algorithm (``SpeculativeAlgorithm.register``):
#: how a call that registers is named where it is not resolved.
REGISTER_CALL_NAMES = frozenset(name.rpartition(".")[2] for name in REGISTER_FUNCTIONS)


def builds_classes(module: ModuleSource) -> bool:
    """Whether the module's code makes a class by a call that sglang's side
    will run: a class-making call at import, a call of one of its own class
    factories at import, or class factories beside a function that registers
    an algorithm (a ``register()`` the plugin's loader calls, whose factory
    makes the class when ``create_worker`` calls it)."""
    factories = _factories(module.tree)
    for node in _module_level(module.tree):
        if isinstance(node, ast.Call) and (_makes_class(node) or _callee(node) in factories):
            return True
    functions = [node for node in ast.walk(module.tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return bool(factories) and any(_registers(function) for function in functions)


def _registers(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(node, ast.Call) and _callee(node) in REGISTER_CALL_NAMES for node in ast.walk(function))


def require_importing(found: Discovery, *, importing: bool, importers: Sequence[str] = ()) -> None:
    """Refuse, in one line, a run whose only workers an import would show
    when no chosen checker imports the target (``--no-import``, static
    checkers only): the run would have nothing to check. ``importers``: the
    checkers that would find them, for the advice."""
    if importing or found.classes or found.sites or not found.runtime_built:
        return
    modules = ", ".join(found.runtime_built)
    names = " or ".join(importers)
    advice = f": the {names} checker would find them (drop --no-import, or choose {' or '.join(f'--checker {n}' for n in importers)})" if importers else ""
    raise GateError(f"no workers found by reading {modules}: it {RUNTIME_BUILT_WORDS}{advice}")


def require_found(found: Discovery, checked: int) -> None:
    """Refuse, in one line, a run that read no worker and whose import of the
    modules listed for it (``runtime_built``) made none either (``checked``:
    the checks the checkers reported): there was nothing to check."""
    if checked or found.classes or found.sites:
        return
    modules = ", ".join(found.runtime_built)
    raise GateError(
        f"no workers found in {modules}: no class statement on a worker base, and importing it "
        "made no subclass of BaseSpecWorker, SpecWorkerBase, EagleDraftWorkerBase, TpModelWorker or the "
        "SpecWorker/DraftWorker protocols (or could not import it)"
    )
