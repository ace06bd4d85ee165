"""What the pytest plugin offers to import: :func:`assert_conforms`, :func:`assert_forward_result`.

The plugin itself (the ``assert_conforms`` and ``assert_forward_result`` fixtures, ``--spec-protocols-gate
TARGET`` items, their options) registers through the ``pytest11`` entry point
from :mod:`spec_protocols._pytest_plugin`; installing spec-protocols is enough.
"""

from __future__ import annotations

from spec_protocols._pytest_plugin import assert_conforms, assert_forward_result

__all__ = ["assert_conforms", "assert_forward_result"]
