"""Helper (not a target): the folder that ``pkg_symlinked/linked`` links to."""

from __future__ import annotations
