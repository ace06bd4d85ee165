"""The scheduler side: every class and function of ``managers/`` and ``disaggregation/`` that holds the spec worker.

A class of those folders that is not itself a worker is walked with ``self``
as a scheduler (``self.draft_worker`` / ``self.model_worker`` are the spec
worker); a module-level function is walked for its receivers (a parameter or
local bound to the scheduler). Both are those the module's import defines
(:attr:`~spec_protocols.gate._contract._extract._tree.Module.run`: also under
a module-level ``if`` / ``try``). A file that never names a worker field, nor
a call a reader wants, holds no use and is not even parsed.
"""

from __future__ import annotations

import ast
import re

from spec_protocols.gate._contract._extract._receivers import SPEC, WORKER_FIELDS
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import last_name
from spec_protocols.gate._contract._extract._tree import ReleaseTree
from spec_protocols.gate._contract._extract._walker import Walker

__all__ = ["SCHEDULER_SIDE", "is_worker_class", "walk_scheduler_side"]

#: Folders (below ``sglang/srt``) whose classes hold the scheduler's spec worker.
SCHEDULER_SIDE = ("managers", "disaggregation")
_SCHEDULER_ROOTS = Roots(self_attrs={name: SPEC for name in WORKER_FIELDS}, scheduler_self=True)


def is_worker_class(cls: ast.ClassDef) -> bool:
    """A worker class: there ``self.draft_worker`` is its own draft, not the spec worker."""
    names = [cls.name, *(last_name(b) for b in cls.bases)]
    return any(n.endswith(("Worker", "WorkerBase")) for n in names)


def walk_scheduler_side(tree: ReleaseTree, walker: Walker) -> None:
    """Walk the scheduler side with ``walker`` (its uses and wanted calls are recorded there)."""
    mentions = re.compile(r"\b(" + "|".join(sorted({*WORKER_FIELDS, *walker.tokens})) + r")\b")
    for folder in SCHEDULER_SIDE:
        for path in tree.files_under(folder):
            text = tree.text(path)
            if text is None or not mentions.search(text):
                continue
            module = tree.module_at(path)
            if module is None:
                continue
            for node in module.run:
                if isinstance(node, ast.ClassDef):
                    if not is_worker_class(node):
                        walker.walk_class(module, node, _SCHEDULER_ROOTS)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    walker.walk_function(Scope(module, None, node, node.name, Roots(scheduler_self=False)))
