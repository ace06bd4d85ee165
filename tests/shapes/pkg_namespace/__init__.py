"""Namespace subfolder: a package whose ``algos`` subfolder has no ``__init__.py``.

Since Python 3.3 such a folder is an implicit namespace package and
``import pkg_namespace.algos.namespace_worker`` works. A scan that only
descends into folders with ``__init__.py`` never sees the worker inside.
"""

from __future__ import annotations
