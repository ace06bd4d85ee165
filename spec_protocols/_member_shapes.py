"""How a member is defined, read statically: what :func:`~spec_protocols.verify_conformance` compares.

A member is looked up as :func:`inspect.getattr_static` does (the MRO's
``__dict__`` entries, past any metaclass override), never with ``getattr``:
no ``__getattr__``, ``__getattribute__`` or property getter of a target ever
runs. Each hit is classified as an instance sees it (:class:`Found`: a method
with the callable whose signature callers meet, a property, a data
attribute, an annotation), a ``functools.partialmethod`` as the method it
becomes (through CPython's own ``__get__`` only).
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import sys
import textwrap
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from spec_protocols._members import protocol_members

__all__ = [
    "MISSING",
    "SHAPE_WORDS",
    "Found",
    "Shape",
    "defining_class",
    "exception_words",
    "lookup",
    "marked_coroutine",
    "protocol_stub",
    "protocol_member_shapes",
    "static_mro",
    "type_name",
]

# The shape of a member as an instance would see it.
Shape = Literal["method", "property", "readonly-property", "attribute", "annotation"]

SHAPE_WORDS: dict[Shape, str] = {
    "method": "a method",
    "property": "a settable property",
    "readonly-property": "a read-only property",
    "attribute": "a data attribute",
    "annotation": "an annotated attribute (no value)",
}

MISSING: Any = object()


@dataclass(frozen=True)
class Found:
    shape: Shape
    # The callable whose signature callers meet, and whether its first
    # parameter is bound (self/cls) on access. None when not a method.
    func: object = None
    bound: bool = False
    # The function whose code says sync, async or generator, where ``func``
    # hides it from inspect (the function a partialmethod wraps). None: func.
    code: object = None
    # Why the signature cannot be read without running the target's code.
    unreadable: str | None = None


def static_mro(cls: type) -> tuple[type, ...]:
    # type.__mro__ read past any metaclass override, as inspect.getattr_static does.
    try:
        mro: object = type.__dict__["__mro__"].__get__(cls)
    except Exception:
        return (cls,)
    # A metaclass's mro() may return anything; keep only classes.
    if not isinstance(mro, tuple):
        return (cls,)
    return tuple(klass for klass in cast("tuple[object, ...]", mro) if isinstance(klass, type))


def _class_dict(klass: type) -> Mapping[str, object] | None:
    # The class's own namespace, read past any metaclass override.
    try:
        namespace: object = type.__dict__["__dict__"].__get__(klass)
    except Exception:
        return None
    return cast("Mapping[str, object]", namespace) if isinstance(namespace, Mapping) else None


def _annotations(namespace: Mapping[str, object]) -> Mapping[str, object]:
    # Annotation-only members (``x: int`` without a value) live only here.
    annotations = namespace.get("__annotations__")
    return cast("Mapping[str, object]", annotations) if isinstance(annotations, dict) else {}


def _is_data_descriptor(value: object) -> bool:
    kind = type(value)
    return hasattr(kind, "__get__") and (hasattr(kind, "__set__") or hasattr(kind, "__delete__"))


def _shape_of(value: object, klass: type) -> Found:
    """Classify a value found in ``klass.__dict__``, as an instance sees it."""
    if isinstance(value, property):
        return Found("property" if value.fset is not None else "readonly-property")
    if isinstance(value, staticmethod):
        return Found("method", value.__func__, bound=False)
    if isinstance(value, classmethod):
        return Found("method", value.__func__, bound=True)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    if isinstance(value, types.FunctionType):
        return Found("method", value, bound=True)
    if isinstance(value, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        return Found("attribute")
    if _is_data_descriptor(value):
        # functools.cached_property is not a data descriptor; other data
        # descriptors (attrs fields, custom ones) read like properties.
        return Found("property")
    if issubclass(type(value), functools.partial):
        # Bound on access (like a function) only from Python 3.14; 3.13 adds
        # a __get__ that warns and returns the partial unchanged.
        if sys.version_info >= (3, 14):
            return Found("method", value, bound=True)
        return Found("attribute", value)
    if type(value).__name__ == "cached_property" and hasattr(type(value), "__get__"):
        # functools.cached_property: read like a property, not a data descriptor.
        return Found("property")
    if issubclass(type(value), functools.partialmethod):
        # Not callable itself (so the branch below would miss it), but a
        # method once accessed.
        return _partialmethod_shape(cast("functools.partialmethod[object]", value), klass)
    if hasattr(type(value), "__get__") and callable(value):
        # Method descriptors (C methods, compiled functions): bound on
        # access like a function.
        return Found("method", value, bound=True)
    # A plain value. If it is callable (a class, a partial, a callable object)
    # it is not bound on access and may stand in for a method.
    return Found("attribute", value if callable(value) else None)


# What a partialmethod may wrap for its __get__ to run no code of the target's:
# these types' own __get__ (or its absence) is CPython's. A staticmethod or
# classmethod counts only over a plain function: on 3.11 and 3.12 a
# classmethod passes __get__ on to what it wraps.
_PLAIN_FUNCS = (types.FunctionType, types.BuiltinFunctionType)
_PLAIN_PARTIALMETHOD_FUNCS = (*_PLAIN_FUNCS, functools.partial)


def _plain_partialmethod_func(func: object) -> bool:
    if type(func) in (staticmethod, classmethod):
        return type(cast("staticmethod[..., object]", func).__func__) in _PLAIN_FUNCS
    return type(func) in _PLAIN_PARTIALMETHOD_FUNCS


def _partialmethod_shape(value: functools.partialmethod[object], klass: type) -> Found:
    """A ``functools.partialmethod`` as callers meet it: the method it becomes on access.

    ``value.__get__(None, klass)`` is what a read through the class returns:
    for a wrapped function, a function whose signature inspect computes from
    the partialmethod (self still first, so bound); for a wrapped
    staticmethod or classmethod, a ``functools.partial`` over the function or
    the bound method (nothing left to bind). That call runs the wrapped
    object's ``__get__``, so it is made only when that is CPython's own: for
    a partialmethod subclass or a wrapped custom descriptor the member is
    reported unverifiable instead of running the target's code.
    """
    func: object = value.func
    if type(value) is not functools.partialmethod or not _plain_partialmethod_func(func):
        return Found(
            "method",
            unreadable=(
                f"a {type_name(type(value))} over a {type_name(type(func))}: "
                "its signature cannot be read without running its code"
            ),
        )
    try:
        accessed: object = value.__get__(None, klass)
    except Exception as exc:
        return Found("method", unreadable=f"partialmethod cannot be read ({exception_words(exc)})")
    bound = not issubclass(type(accessed), functools.partial)
    return Found("method", accessed, bound=bound, code=_unwrap_code(func))


def _unwrap_code(func: object) -> object:
    # The function under staticmethod, classmethod and partial layers, whose
    # code flags tell sync, async or generator. Bounded: each step peels one.
    for _ in range(16):
        if issubclass(type(func), (staticmethod, classmethod)):
            func = cast("staticmethod[..., object]", func).__func__
        elif issubclass(type(func), functools.partial):
            func = cast("functools.partial[object]", func).func
        else:
            break
    return func


def defining_class(cls: type, name: str) -> tuple[type, object] | None:
    """The class of ``cls``'s MRO whose namespace holds ``name`` (as :func:`lookup`
    finds it on the class), with the value there; None when none does."""
    for klass in static_mro(cls):
        namespace = _class_dict(klass)
        if namespace is not None and name in namespace:
            return klass, namespace[name]
    return None


def lookup(cls: type, instance: object, name: str) -> Found | None:
    """Find ``name`` without running ``__getattr__``, ``__getattribute__`` or any getter."""
    class_hit: Found | None = None
    for klass in static_mro(cls):
        namespace = _class_dict(klass)
        if namespace is None:
            continue
        if name in namespace:
            class_hit = _shape_of(namespace[name], klass)
            break
        if name in _annotations(namespace):
            class_hit = Found("annotation")
            break
    if instance is not MISSING and not (
        class_hit is not None and class_hit.shape in ("property", "readonly-property")
    ):
        # The instance's own __dict__ wins over everything but data descriptors.
        try:
            own: object = object.__getattribute__(instance, "__dict__")
        except Exception:
            own = None
        if isinstance(own, dict) and name in own:
            value = cast("dict[str, object]", own)[name]
            return Found("attribute", value if callable(value) else None)
        if class_hit is not None and class_hit.shape == "annotation":
            # Declared on the class but never set on this instance: reading
            # it would raise AttributeError, so for an instance it is missing.
            return None
    return class_hit


# Protocols are fixed once defined, so their side of the check is computed
# once per protocol; the target's side is always read afresh.
@functools.lru_cache(maxsize=64)
def protocol_member_shapes(protocol: type) -> tuple[tuple[str, Found], ...]:
    """The protocol's members with their shapes, in definition order (spec_protocols._members)."""
    return tuple((name, _protocol_shape(protocol, name)) for name in protocol_members(protocol))


def _protocol_shape(protocol: type, name: str) -> Found:
    found = lookup(protocol, MISSING, name)
    if found is None or found.shape == "annotation":
        return Found("attribute")
    return found


def type_name(cls: type) -> str:
    # Read past metaclass overrides, as static_mro does.
    try:
        module: object = type.__dict__["__module__"].__get__(cls)
        qualname: object = type.__dict__["__qualname__"].__get__(cls)
    except Exception:
        return repr(cls)
    if not isinstance(qualname, str):
        return repr(cls)
    return f"{module}.{qualname}" if isinstance(module, str) and module else qualname


# Object addresses in error messages differ from run to run; results must not.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def exception_words(exc: BaseException) -> str:
    return _ADDRESS.sub("", f"{type(exc).__name__}: {exc}")


def marked_coroutine(func: object) -> bool:
    """``inspect.markcoroutinefunction``'s mark (Python 3.12+) or asyncio's
    older one, read from the function's own ``__dict__`` (no getter runs)."""
    if not issubclass(type(func), types.FunctionType):
        return False
    namespace = cast("dict[str, object]", object.__getattribute__(func, "__dict__"))
    marks = (getattr(inspect, "_is_coroutine_mark", None), getattr(sys.modules.get("asyncio.coroutines"), "_is_coroutine", None))
    return any(
        mark is not None and namespace.get(key) is mark
        for key, mark in zip(("_is_coroutine_marker", "_is_coroutine"), marks, strict=True)
    )


def protocol_stub(cls: type, instance: object, name: str) -> str | None:
    """The protocol whose stub ``cls`` inherits for ``name`` (an explicit
    subclass of a protocol that does not write the member), else None.

    A stub is a function (or a property's getter) of a ``Protocol`` class
    whose body is only a docstring, ``...`` or ``pass``: calling it returns
    None. A protocol's member with a real body is a default, and counts. A
    protocol checked against itself (or another protocol) has no stubs to
    blame; an instance's own attribute wins over the class's stub.
    """
    if _declares_protocol(cls):
        return None
    if instance is not MISSING:
        try:
            own: object = object.__getattribute__(instance, "__dict__")
        except Exception:
            own = None
        if isinstance(own, dict) and name in own:
            return None
    hit = defining_class(cls, name)
    if hit is None or not _declares_protocol(hit[0]):
        return None
    owner, value = hit
    func: object = value.fget if isinstance(value, property) else value
    if isinstance(func, (staticmethod, classmethod)):
        func = cast("staticmethod[..., object]", func).__func__
    return owner.__qualname__ if issubclass(type(func), types.FunctionType) and _is_stub(func) else None


def _declares_protocol(klass: type) -> bool:
    """Whether ``klass`` is a protocol class, read from its own namespace
    (``typing``'s ``_is_protocol`` flag, which every subclass of a protocol
    sets for itself), so no metaclass ``__getattr__`` runs."""
    hit = defining_class(klass, "_is_protocol")
    return hit is not None and hit[0] is klass and hit[1] is True


@functools.lru_cache(maxsize=256)
def _is_stub(func: types.FunctionType) -> bool:
    """Whether ``func``'s body is only a docstring, ``...`` or ``pass`` (read from its source)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if node is None:
        return False
    return all(
        isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        for stmt in node.body
    )
