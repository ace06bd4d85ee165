"""Unreadable files in a package: a ``broken.py`` with a syntax error and a ``my-helpers.py`` that no import can name.

Real plugin trees carry half-edited files and scripts with dashes in their
names. Neither can hold a worker the scheduler could import, so each is a
note in the report (naming the file), not an abort: the package's good worker
is still checked and passes.
"""

from __future__ import annotations

# expect-note: broken.py
# expect-note: my-helpers.py
