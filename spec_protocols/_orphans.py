"""Submodules an import left in ``sys.modules`` without their package.

When ``import pkg.sub.mod`` fails inside ``pkg/__init__.py`` (a dependency is
missing), Python removes ``pkg`` from ``sys.modules`` but keeps the submodules
that had already loaded (``pkg.sub``). The next import of ``pkg.sub.other``
then finds ``pkg.sub`` and never re-runs ``pkg``; if ``pkg.sub`` is a
namespace package its path is recomputed from ``sys.modules["pkg"]``, and the
import fails with ``KeyError: 'pkg'`` instead of the missing dependency
(sglang without numpy: ``sglang/srt`` has no ``__init__.py``). The same
happens when code catches an ImportError itself. Forgetting those orphans
makes the next import run ``pkg/__init__.py`` again and fail for the real
reason. A fully imported module (torch, say) has its package and stays:
re-importing an extension module is not always possible.
"""

from __future__ import annotations

import sys
from collections.abc import Collection

__all__ = ["drop_orphans"]


def drop_orphans(before: Collection[str] = ()) -> None:
    """Forget every module in ``sys.modules`` that some package above it is
    missing from, except those in ``before`` (the modules that were there
    before an import: only what that import added goes)."""
    for name in [name for name in list(sys.modules) if name not in before]:
        parent = name.rpartition(".")[0]
        while parent:
            if parent not in sys.modules:
                sys.modules.pop(name, None)
                break
            parent = parent.rpartition(".")[0]
