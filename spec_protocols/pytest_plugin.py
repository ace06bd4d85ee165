"""What the pytest plugin offers to import: :func:`assert_conforms`.

The plugin itself (the ``assert_conforms`` fixture, ``--spec-protocols-gate
TARGET`` items, their options) registers through the ``pytest11`` entry point
from :mod:`spec_protocols._pytest_plugin`; installing spec-protocols is enough.
"""

from __future__ import annotations

from spec_protocols._pytest_plugin import assert_conforms

__all__ = ["assert_conforms"]
