"""No skip on an ImportError of this project's own modules (installed by tests/conftest.py).

``sglang`` and ``torch`` may be missing on a machine, and a test then skips
naming what is missing; ``spec_protocols`` is the code under test, and a test
that skips when it cannot be imported turns a broken module into a green run.
:func:`install` makes every skip and xfail raised while an ImportError of a
``spec_protocols`` module is being handled (``pytest.importorskip``, a
``pytest.skip`` or ``pytest.xfail`` in an ``except ImportError`` handler,
at module level or in a test or fixture) raise :class:`HiddenSkip` instead:
the test, or the module's collection, fails with the import error.

Limits: only a skip raised *while* the error is handled is seen (the
ImportError is on ``sys.exc_info()``, or in its ``__context__`` chain); a
handler that records a flag for a later ``skipif``, or a ``skipif`` on
``find_spec("spec_protocols...")`` (which imports nothing), is not seen.
Which module failed is the error's ``name`` (``ModuleNotFoundError``, and
"cannot import name" errors, name the module they could not import or import
from): a spec_protocols module that fails on a missing third-party import
names that module, and may skip.
"""

from __future__ import annotations

import sys
from typing import Any

from _pytest.outcomes import Skipped, XFailed

OWN = "spec_protocols"


class HiddenSkip(Exception):
    """A skip or xfail that would hide an ImportError of spec_protocols."""


def own_import_error(exc: BaseException | None) -> ImportError | None:
    """The ImportError of a spec_protocols module in ``exc``'s context chain, if any."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ImportError) and (exc.name or "").split(".")[0] == OWN:
            return exc
        exc = exc.__context__
    return None


def _refusing(init: Any) -> Any:
    def __init__(self: BaseException, *args: Any, **kwargs: Any) -> None:
        error = own_import_error(sys.exc_info()[1])
        if error is not None:
            raise HiddenSkip(
                f"a skip on an ImportError of {error.name} ({OWN} is the code under test: "
                f"a broken module fails, it does not skip): {type(error).__name__}: {error}"
            ) from error
        init(self, *args, **kwargs)

    __init__.refuses_hidden_skips = True  # type: ignore[attr-defined]
    return __init__


def install() -> None:
    """Refuse hidden skips in this process (idempotent)."""
    for outcome in (Skipped, XFailed):
        if not getattr(outcome.__init__, "refuses_hidden_skips", False):
            outcome.__init__ = _refusing(outcome.__init__)  # type: ignore[method-assign]
