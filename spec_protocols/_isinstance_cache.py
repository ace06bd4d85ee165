"""A per-class cache behind ``isinstance(obj, SpecWorker)`` (and the other protocols).

sglang checks workers at start-up and when loading plugins; a structural check
walks every member (``typing_extensions``: about 0.3 us for a match and 9 us
for a miss on these protocols, measured by ``benchmarks/bench_gate.py``). The
answer for a class does not change while the class does not, so it is cached.

What the cache keys on: the object's class (``type(obj)``), per protocol.

What it caches, and so what ``isinstance`` means for these protocols:

* **Hit** -- every protocol member is found on the class (in its MRO
  dictionaries; never through ``__getattr__``), and no method member is
  ``None``: cached as ``True``. An instance attribute that shadows a class
  member (``self.clear_cache_pool = None``) is not consulted.
* **Miss on a method** -- the class lacks a method member: cached as
  ``False``. A method supplied only as an instance attribute is not seen.
* **Miss on a data member only** (a property such as ``target_worker`` that a
  class may satisfy with an attribute set in ``__init__``): not cached; every
  such check runs ``typing_extensions``' own instance check, so the answer is
  exactly the uncached one.

When it is invalidated: :func:`clear_isinstance_cache` empties it (call it
after patching a class's members at runtime); it also empties itself when it
holds more than :data:`MAX_ENTRIES` classes, so classes made on the fly cannot
grow it without bound. The cached classes are kept alive until then.
"""

from __future__ import annotations

import types
from typing import Any, Final

import typing_extensions

__all__ = ["MAX_ENTRIES", "clear_isinstance_cache", "install_isinstance_cache"]

#: The cache empties itself past this many (protocol, class) entries.
MAX_ENTRIES: Final = 4096

_MISSING = object()
_ProtocolMeta: Any = type(typing_extensions.Protocol)
# protocol -> {class -> answer}
_CACHES: dict[type, dict[type, bool]] = {}
# protocol -> (method member names, data member names)
_MEMBERS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _on_class(cls: type, name: str) -> object:
    for klass in cls.__mro__:
        namespace = klass.__dict__
        if name in namespace:
            return namespace[name]
    return _MISSING


def _class_answer(protocol: type, cls: type) -> bool | None:
    """True/False when the class alone decides; None when an instance might."""
    methods, data = _MEMBERS[protocol]
    for name in methods:
        if _on_class(cls, name) in (_MISSING, None):
            return False
    for name in data:
        if _on_class(cls, name) is _MISSING:
            return None
    return True


def _slow_check(protocol: Any, instance: object) -> bool:
    cache = _CACHES[protocol]
    klass = type(instance)
    answer = _class_answer(protocol, klass)
    if answer is None:
        return bool(_ProtocolMeta.__instancecheck__(protocol, instance))
    if len(cache) >= MAX_ENTRIES:
        cache.clear()
    cache[klass] = answer
    return answer


def _cached_metaclass(protocol: type, cache: dict[type, bool]) -> type:
    """A metaclass for one protocol whose ``__instancecheck__`` reads ``cache``.

    One metaclass per protocol, with the cache bound as a default argument:
    the hot path is then a single dict lookup on a local, which is what makes
    a cached check cheaper than the structural one.
    """

    def __instancecheck__(cls: Any, instance: object, _cache: dict[type, bool] = cache) -> bool:
        try:
            return _cache[type(instance)]
        except KeyError:
            if cls is not protocol:  # a subclass of a cached protocol: no caching
                return bool(_ProtocolMeta.__instancecheck__(cls, instance))
            return _slow_check(cls, instance)

    name = f"_Cached{protocol.__name__}Meta"
    return type(name, (_ProtocolMeta,), {"__instancecheck__": __instancecheck__, "__module__": __name__})


def install_isinstance_cache(*protocols: type) -> None:
    """Put the per-class cache behind ``isinstance`` for each runtime-checkable protocol."""
    for protocol in protocols:
        members = sorted(typing_extensions.get_protocol_members(protocol))
        methods = tuple(m for m in members if isinstance(_on_class(protocol, m), types.FunctionType))
        data = tuple(m for m in members if m not in methods)
        _MEMBERS[protocol] = (methods, data)
        cache: dict[type, bool] = {}
        _CACHES[protocol] = cache
        # The metaclass is swapped after the class is built, so type checkers
        # see an ordinary Protocol; the subclass adds no state, so the layout
        # is compatible and the assignment is allowed.
        type.__setattr__(protocol, "__class__", _cached_metaclass(protocol, cache))


def clear_isinstance_cache() -> None:
    """Forget every cached answer (e.g. after monkeypatching a worker class)."""
    for cache in _CACHES.values():
        cache.clear()
