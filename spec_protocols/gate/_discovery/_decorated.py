"""Classes a plugin marks with this package's class decorators: workers of that role, whatever their bases.

``@spec_protocols.spec_worker_class`` and ``@spec_protocols.draft_worker_class``
(:mod:`spec_protocols._class_decorators`) are the identity at run time; what
they say is the author's: this class is what sglang constructs. So

* a class decorated with ``spec_worker_class`` is a spec worker
  (``SpecWorker``, built by ``Scheduler.maybe_init_draft_worker``'s
  ``WorkerClass(server_args=, gpu_id=, nccl_port=, target_worker=)``), and
  never an intentional abstract base: sglang constructs it, as it does a
  registered class;
* a class decorated with ``draft_worker_class`` is an injected draft worker
  (``DraftWorker`` and ``DraftWorkerFactory``: ``build_draft_tp_worker``'s
  ``draft_worker_cls(server_args=, gpu_id=, ...)``,
  speculative/draft_worker_common.py), as a class injected as
  ``draft_worker_cls`` is.

The decorator expression is resolved through the module's bindings as a base
class is (:meth:`SourceIndex.resolve`: ``import spec_protocols as sp`` then
``@sp.spec_worker_class``, ``from spec_protocols import spec_worker_class as
w`` then ``@w``, a module-level alias, a plugin module that re-exports it, the
private ``spec_protocols._class_decorators`` path). The names below are roots
of the index (what counts as resolved even where the package cannot be read),
so a function of another package with the same name resolves to that package's
name, and is no decorator of this package. Nothing is decided from a class's
own name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from spec_protocols.gate._discovery._source_index import ModuleSource, SourceIndex
from spec_protocols.gate._model import ClassRole
from spec_protocols.gate._source import dotted_name

__all__ = ["DECORATOR_ROOTS", "decorated_roles", "own_decorator_lines"]


def _decorator(name: str) -> frozenset[str]:
    """A decorator of this package, where it is defined and as it is exported."""
    return frozenset({f"spec_protocols._class_decorators.{name}", f"spec_protocols.{name}"})


_SPEC_DECORATORS = _decorator("spec_worker_class")
_DRAFT_DECORATORS = _decorator("draft_worker_class")
#: Every name a decorator of this package resolves to (roots of the index).
DECORATOR_ROOTS: frozenset[str] = _SPEC_DECORATORS | _DRAFT_DECORATORS

#: The roles each decorator gives the class: a draft worker class is given to
#: build_draft_tp_worker, which constructs it (an injected class's roles).
_ROLES: tuple[tuple[frozenset[str], tuple[ClassRole, ...]], ...] = (
    (_SPEC_DECORATORS, (ClassRole.SPEC_WORKER,)),
    (_DRAFT_DECORATORS, (ClassRole.INJECTED, ClassRole.DRAFT_WORKER)),
)


def decorated_roles(index: SourceIndex, module: ModuleSource, node: ast.ClassDef) -> frozenset[ClassRole]:
    """The roles the decorators of class ``node`` (defined in ``module``) give it; empty for none."""
    roles: set[ClassRole] = set()
    for resolved in _resolved_decorators(index, module, node):
        for names, given in _ROLES:
            if resolved in names:
                roles.update(given)
    return frozenset(roles)


def own_decorator_lines(index: SourceIndex, module: ModuleSource, node: ast.ClassDef) -> tuple[int, ...]:
    """Every line of each decorator of ``node`` that is one of this package's."""
    lines: list[int] = []
    for decorator, resolved in _decorators(index, module, node):
        if resolved in DECORATOR_ROOTS:
            lines.extend(range(decorator.lineno, (decorator.end_lineno or decorator.lineno) + 1))
    return tuple(lines)


def _resolved_decorators(index: SourceIndex, module: ModuleSource, node: ast.ClassDef) -> Iterator[str]:
    """What each decorator of ``node`` that is a plain (dotted) name resolves to."""
    for _, resolved in _decorators(index, module, node):
        yield resolved


def _decorators(index: SourceIndex, module: ModuleSource, node: ast.ClassDef) -> Iterator[tuple[ast.expr, str]]:
    """Each decorator of ``node`` that is a plain (dotted) name, and what it resolves to.

    A call (``@register("X")``) or any other expression is no decorator of
    this package: its decorators take the class itself.
    """
    for decorator in node.decorator_list:
        dotted = dotted_name(decorator)
        if dotted is None:
            continue
        resolved = index.resolve(module, dotted)
        if resolved is not None:
            yield decorator, resolved
