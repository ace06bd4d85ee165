"""Helper (not a target): an untyped algorithm registry, imported by ``registry_decorator_other_module``."""

from __future__ import annotations

ALGORITHMS = {}


def register(name):
    """Record the decorated class under ``name``; return it unchanged."""

    def decorator(cls):
        ALGORITHMS[name] = cls
        return cls

    return decorator
