"""The built-in workers: the classes ``SpeculativeAlgorithm.create_worker`` returns, each where it is defined.

Every branch imports its worker and returns it (``from
sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2; return
DFlashWorkerV2``); a return of anything else (0.5.23's
``platform_worker_cls``, an out-of-tree platform's replacement) names no
class of sglang and is left out. A name a package re-exports is followed to
the module that defines it (the gate names a class by its defining module).
The module's names are those its import binds (:attr:`Module.run`: also
under ``if``, ``try``, ``with``, ``for``, ``match``).
"""

from __future__ import annotations

import ast

from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import functions, own_nodes
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree, find_class
from spec_protocols.gate._contract._release_contract import BuiltInWorker, Site
from spec_protocols.gate._source import from_imports

__all__ = ["built_in_workers"]

#: How many re-exports deep a name is followed.
_MAX_HOPS = 3


def built_in_workers(tree: ReleaseTree) -> tuple[BuiltInWorker, ...]:
    """The classes ``SpeculativeAlgorithm.create_worker`` returns, each where it is defined."""
    found = find_class(tree, "spec_info.py", "SpeculativeAlgorithm")
    if found is None:
        return ()
    module, cls = found
    create = next((f for f in functions(cls.body) if f.name == "create_worker"), None)
    if create is None:
        return ()
    imports, defined = _module_names(module)
    # The function's own imports shadow the module's.
    imports.update(Scope(module, cls, create, f"{cls.name}.create_worker", Roots()).imports)
    workers: dict[str, BuiltInWorker] = {}
    returns = sorted((n for n in own_nodes(create) if isinstance(n, ast.Return)), key=lambda n: (n.lineno, n.col_offset))
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


def _module_names(module: Module) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """What ``module``'s import binds: the names it imports (local name ->
    (module, name), the last import of a name winning) and the classes it defines."""
    imports = {local: (source, name) for local, source, name in from_imports(module.run, module.package)}
    return imports, {stmt.name for stmt in module.run if isinstance(stmt, ast.ClassDef)}


def _returned_names(value: ast.expr | None) -> list[str]:
    """The names a ``return`` gives back: ``return X``, ``return A if c else B``."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.IfExp):
        return _returned_names(value.body) + _returned_names(value.orelse)
    return []


def _defining_module(tree: ReleaseTree, dotted: str, name: str, hops: int = 0) -> tuple[str, str]:
    """Where ``name``, imported from ``dotted``, is defined: a package that
    re-exports it is followed. A module the tree lacks is taken at its word."""
    module = tree.module(dotted)
    if module is None or hops > _MAX_HOPS:
        return dotted, name
    if any(isinstance(stmt, ast.ClassDef) and stmt.name == name for stmt in module.run):
        return dotted, name
    for local, source, imported in from_imports(module.run, module.package):
        if local == name:
            return _defining_module(tree, source, imported, hops + 1)
    return dotted, name
