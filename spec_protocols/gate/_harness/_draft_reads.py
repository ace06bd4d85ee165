"""What sglang builds and calls: the draft class behind ``self._draft_worker``, the builder behind a registration.

A spec worker that keeps a ``BaseSpecWorker`` default reading its draft
worker (``weight_update_runners`` reads ``draft_worker.draft_runners``) is
held to what that draft worker has. Where the worker builds its draft with
``build_draft_tp_worker(..., draft_worker_cls=D)`` and keeps the bundle's
``draft_worker`` (``self._draft_worker = bundle.draft_worker``), the object
the default reads is a ``D``: ``build_draft_tp_worker`` returns
``DraftWorkerBundle(draft_worker=draft_worker_cls(...), ...)``
(speculative/draft_worker_common.py: build_draft_tp_worker), though the
bundle declares the field ``TpModelWorker``. The checkers, reading the
declared type, would miss every member ``D`` adds. :func:`built_drafts`
names the classes to read those needs on instead: the classes discovery
followed from this worker's own injections (``DiscoveredClass.injected_by``),
when its source keeps a bundle's ``draft_worker`` as ``self._draft_worker``.
:func:`built_by` names the other half of "what the scheduler builds": the
function a registered factory returns, where that function builds the class
(``Registration.builder``): the constructor line is written for it.
Source only; nothing runs.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from spec_protocols.gate._model import DiscoveredClass
from spec_protocols.gate._source import ParseCache

__all__ = ["built_by", "built_drafts"]


def _keeps_bundle_draft(tree: ast.Module, qualname: str, line: int) -> bool:
    """Whether the class at ``line`` assigns ``self._draft_worker = <expr>.draft_worker`` in a method."""
    name = qualname.rpartition(".")[2]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ClassDef) and node.name == name and node.lineno == line):
            continue
        for inner in ast.walk(node):
            if not isinstance(inner, (ast.Assign, ast.AnnAssign)):
                continue
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
            stores = any(
                isinstance(t, ast.Attribute) and t.attr == "_draft_worker" and isinstance(t.value, ast.Name) and t.value.id == "self"
                for t in targets
            )
            value = inner.value
            if stores and isinstance(value, ast.Attribute) and value.attr == "draft_worker":
                return True
    return False


def built_drafts(cls: DiscoveredClass, classes: Sequence[DiscoveredClass], cache: ParseCache | None = None) -> tuple[DiscoveredClass, ...]:
    """The draft classes ``cls``'s kept defaults read through ``self._draft_worker`` (see the module); empty: read it as declared."""
    injected = tuple(c for c in classes if cls.dotted in c.injected_by)
    if not injected:
        return ()
    parsed = (cache or ParseCache()).parse(cls.file)
    if parsed is None or not _keeps_bundle_draft(parsed.tree, cls.qualname, cls.line):
        return ()
    return injected


def built_by(cls: DiscoveredClass) -> str | None:
    """The function every registration of ``cls`` builds it through
    (``Registration.builder``: the factory returns a function that builds the
    class, and the scheduler's ``DraftWorkerClass(**draft_worker_kwargs)``
    calls that, scheduler.py: maybe_init_draft_worker); None where a
    registration hands the scheduler the class itself, or there is none."""
    builders = {r.builder for r in cls.registrations}
    if len(builders) != 1:
        return None
    return next(iter(builders))
