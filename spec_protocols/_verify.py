"""``verify_conformance``: a runtime conformance check that goes beyond ``isinstance``.

``isinstance(worker, SpecWorker)`` only asks whether every member *exists*.
:func:`verify_conformance` also asks whether each member is the right *kind*
(method, property, data attribute), whether a method's parameters accept the
calls that sglang makes (by position and by keyword), and whether it is sync
or async as the protocol says. It returns every problem at once.

Decisions, each one deliberate:

* Members are looked up statically (the MRO's ``__dict__`` entries, as
  :func:`inspect.getattr_static` does), never with ``getattr``. A class's
  ``__getattr__`` therefore never counts as having a member: three sglang
  workers (DFlash, DSpark, Uno) define one that delegates to the target worker,
  and ``typing.runtime_checkable`` on Python 3.11 uses ``hasattr``, so they
  pass *any* ``isinstance`` check. No property getter is ever called either,
  so a property that raises cannot break the check.
* Given a class, the question is "would its instances conform?". Given an
  instance, its own ``__dict__`` counts too (an attribute set in ``__init__``).
* For a callable protocol (one whose member is ``__call__``, such as
  :class:`~spec_protocols.DraftWorkerFactory`) a *class* is checked as the
  callable it is: its constructor signature, ``inspect.signature(cls)``. That
  is how mypy and pyright treat ``factory: DraftWorkerFactory[W] = MyWorker``.
* What cannot be read (a C callable without a signature, a ``__signature__``
  that raises) is reported as an ``"unverifiable"`` problem, never a crash and
  never a silent pass.
* A member is checked as what an instance gets: a ``staticmethod`` by its
  function (nothing bound), a ``classmethod`` with ``cls`` bound, a
  ``functools.partialmethod`` as the method it becomes (read through CPython's
  own ``__get__``, never a target's).
* Calling the member must do what calling the protocol's method does: an
  ``async def`` where callers do not await, or a generator function (whose
  body waits for iteration) where the protocol's method does not return an
  iterator, is a problem even when the parameters fit.
* Problems come in protocol definition order (base protocols first), then by
  a fixed sequence of checks per member, so the result is identical on Python
  3.11, 3.12 and 3.13.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_origin

from typing_extensions import is_protocol

from spec_protocols._members import protocol_members

__all__ = [
    "ConformanceProblem",
    "ConformanceResult",
    "ProblemKind",
    "abstract_members",
    "verify_call",
    "verify_conformance",
    "verify_method_call",
]

#: What went wrong with one member:
#:
#: ``"missing"``: the member is not defined (``__getattr__`` does not count).
#: ``"kind"``: method where the protocol has a property or data attribute, or
#: the other way round, or a read-only property where it has a settable attribute.
#: ``"signature"``: a call that the protocol allows would fail (a parameter that
#: cannot be passed, an extra required parameter, a default that is missing).
#: ``"async"``: a coroutine function where the protocol has a plain one, or the
#: other way round.
#: ``"generator"``: a generator function (or async generator function) where
#: the protocol has a plain method whose return type is not an iterator:
#: calling it runs none of its body.
#: ``"unverifiable"``: the member exists but its shape cannot be read at runtime
#: (e.g. a C callable without a signature).
ProblemKind = Literal["missing", "kind", "signature", "async", "generator", "unverifiable"]


@dataclass(frozen=True)
class ConformanceProblem:
    """One way in which a class fails a protocol, as reported by :func:`verify_conformance`."""

    member: str
    """The protocol member concerned."""
    kind: ProblemKind
    """The category of the problem; see :data:`ProblemKind`."""
    message: str
    """What is wrong, in words, naming the parameter or member involved."""

    def __str__(self) -> str:
        return f"{self.member} [{self.kind}]: {self.message}"


@dataclass(frozen=True)
class ConformanceResult:
    """The outcome of :func:`verify_conformance`: every problem found, in a fixed order."""

    target: str
    """Dotted qualified name of the class (or callable) that was checked."""
    protocol: str
    """Name of the protocol it was checked against."""
    problems: tuple[ConformanceProblem, ...]
    """Every problem, in protocol definition order; empty when it conforms."""

    @property
    def ok(self) -> bool:
        """Whether the target conforms (no problems at all)."""
        return not self.problems

    def format(self) -> str:
        """A readable report: one line of verdict, then one line per problem."""
        if self.ok:
            return f"{self.target} conforms to {self.protocol}"
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        lines = [f"{self.target} does not conform to {self.protocol} ({count} {noun}):"]
        lines.extend(f"  - {problem}" for problem in self.problems)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


# -- how a member is defined -------------------------------------------------

# The shape of a member as an instance would see it.
_Shape = Literal["method", "property", "readonly-property", "attribute", "annotation"]

_SHAPE_WORDS: dict[_Shape, str] = {
    "method": "a method",
    "property": "a settable property",
    "readonly-property": "a read-only property",
    "attribute": "a data attribute",
    "annotation": "an annotated attribute (no value)",
}

_MISSING: Any = object()


@dataclass(frozen=True)
class _Found:
    shape: _Shape
    # The callable whose signature callers meet, and whether its first
    # parameter is bound (self/cls) on access. None when not a method.
    func: object = None
    bound: bool = False
    # The function whose code says sync, async or generator, where ``func``
    # hides it from inspect (the function a partialmethod wraps). None: func.
    code: object = None
    # Why the signature cannot be read without running the target's code.
    unreadable: str | None = None


def _static_mro(cls: type) -> tuple[type, ...]:
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


def _shape_of(value: object, klass: type) -> _Found:
    """Classify a value found in ``klass.__dict__``, as an instance sees it."""
    if isinstance(value, property):
        return _Found("property" if value.fset is not None else "readonly-property")
    if isinstance(value, staticmethod):
        return _Found("method", value.__func__, bound=False)
    if isinstance(value, classmethod):
        return _Found("method", value.__func__, bound=True)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    if isinstance(value, types.FunctionType):
        return _Found("method", value, bound=True)
    if isinstance(value, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        return _Found("attribute")
    if _is_data_descriptor(value):
        # functools.cached_property is not a data descriptor; other data
        # descriptors (attrs fields, custom ones) read like properties.
        return _Found("property")
    if issubclass(type(value), functools.partial):
        # Bound on access (like a function) only from Python 3.14; 3.13 adds
        # a __get__ that warns and returns the partial unchanged.
        if sys.version_info >= (3, 14):
            return _Found("method", value, bound=True)
        return _Found("attribute", value)
    if type(value).__name__ == "cached_property" and hasattr(type(value), "__get__"):
        # functools.cached_property: read like a property, not a data descriptor.
        return _Found("property")
    if issubclass(type(value), functools.partialmethod):
        # Not callable itself (so the branch below would miss it), but a
        # method once accessed.
        return _partialmethod_shape(cast("functools.partialmethod[object]", value), klass)
    if hasattr(type(value), "__get__") and callable(value):
        # Method descriptors (C methods, compiled functions): bound on
        # access like a function.
        return _Found("method", value, bound=True)
    # A plain value. If it is callable (a class, a partial, a callable object)
    # it is not bound on access and may stand in for a method.
    return _Found("attribute", value if callable(value) else None)


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


def _partialmethod_shape(value: functools.partialmethod[object], klass: type) -> _Found:
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
        return _Found(
            "method",
            unreadable=(
                f"a {_type_name(type(value))} over a {_type_name(type(func))}: "
                "its signature cannot be read without running its code"
            ),
        )
    try:
        accessed: object = value.__get__(None, klass)
    except Exception as exc:
        return _Found("method", unreadable=f"partialmethod cannot be read ({_exception_words(exc)})")
    bound = not issubclass(type(accessed), functools.partial)
    return _Found("method", accessed, bound=bound, code=_unwrap_code(func))


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


def _lookup(cls: type, instance: object, name: str) -> _Found | None:
    """Find ``name`` without running ``__getattr__``, ``__getattribute__`` or any getter."""
    class_hit: _Found | None = None
    for klass in _static_mro(cls):
        namespace = _class_dict(klass)
        if namespace is None:
            continue
        if name in namespace:
            class_hit = _shape_of(namespace[name], klass)
            break
        if name in _annotations(namespace):
            class_hit = _Found("annotation")
            break
    if instance is not _MISSING and not (
        class_hit is not None and class_hit.shape in ("property", "readonly-property")
    ):
        # The instance's own __dict__ wins over everything but data descriptors.
        try:
            own: object = object.__getattribute__(instance, "__dict__")
        except Exception:
            own = None
        if isinstance(own, dict) and name in own:
            value = cast("dict[str, object]", own)[name]
            return _Found("attribute", value if callable(value) else None)
        if class_hit is not None and class_hit.shape == "annotation":
            # Declared on the class but never set on this instance: reading
            # it would raise AttributeError, so for an instance it is missing.
            return None
    return class_hit


# Protocols are fixed once defined, so their side of the check is computed
# once per protocol; the target's side is always read afresh.
@functools.lru_cache(maxsize=64)
def _protocol_members(protocol: type) -> tuple[tuple[str, _Found], ...]:
    """The protocol's members with their shapes, in definition order (spec_protocols._members)."""
    return tuple((name, _protocol_shape(protocol, name)) for name in protocol_members(protocol))


def _protocol_shape(protocol: type, name: str) -> _Found:
    found = _lookup(protocol, _MISSING, name)
    if found is None or found.shape == "annotation":
        return _Found("attribute")
    return found


# -- signatures ---------------------------------------------------------------

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _signature(func: object, *, bound: bool) -> inspect.Signature:
    """The signature a caller meets; raises on anything unreadable."""
    sig = inspect.signature(func)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType] -- any callable; errors are reported by the caller
    if not bound:
        return sig
    params = list(sig.parameters.values())
    if params and params[0].kind in _POSITIONAL:
        params = params[1:]
    elif not params or params[0].kind is not inspect.Parameter.VAR_POSITIONAL:
        # e.g. ``def draft():`` in a class body: every call on an instance fails.
        raise _NoSelfError
    # A leading *args absorbs self and stays; nothing else can take it.
    return sig.replace(parameters=params)


@functools.lru_cache(maxsize=256)
def _protocol_signature(member: _Found) -> inspect.Signature:
    return _signature(member.func, bound=member.bound)


class _NoSelfError(Exception):
    """A method with no parameter to receive the instance (or class)."""


def _is_async(func: object) -> bool:
    try:
        return inspect.iscoroutinefunction(func)
    except Exception:
        return False


def _code_of(found: _Found) -> object:
    return found.code if found.code is not None else found.func


def _generator_kind(func: object) -> Literal["generator", "async generator"] | None:
    try:
        if inspect.isasyncgenfunction(func):
            return "async generator"
        if inspect.isgeneratorfunction(func):
            return "generator"
    except Exception:
        pass
    return None


# Return types that a generator (or async generator) function satisfies: the
# protocol's callers iterate the result, so a lazy body is what they expect
# (``weight_update_runners`` may well be written as a generator).
_ITERATOR_RETURNS: Mapping[str, frozenset[str]] = {
    "generator": frozenset({"Iterable", "Iterator", "Generator"}),
    "async generator": frozenset({"AsyncIterable", "AsyncIterator", "AsyncGenerator"}),
}
# A string annotation's outermost name: "collections.abc.Iterable[int]" -> "Iterable".
_OUTER_NAME = re.compile(r"\s*(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*)\s*(?:\[|$)")


def _return_admits(annotation: object, kind: Literal["generator", "async generator"]) -> bool:
    """Whether the protocol's declared return type is one that ``kind`` of function returns."""
    if isinstance(annotation, str):
        match = _OUTER_NAME.match(annotation)
        return match is not None and match.group(1) in _ITERATOR_RETURNS[kind]
    origin: object = get_origin(annotation) or annotation
    name = getattr(origin, "__name__", None)
    module = getattr(origin, "__module__", None)
    return module in ("collections.abc", "typing") and name in _ITERATOR_RETURNS[kind]


_FUNCTION_WORDS = {
    None: "a plain function",
    "generator": "a generator function",
    "async generator": "an async generator function",
}


def _call_kind_problems(name: str, wanted: _Found, found: _Found, proto_sig: inspect.Signature) -> Iterator[ConformanceProblem]:
    """Sync, async or generator: does calling the implementation do what calling the protocol's method does?"""
    proto_async = _is_async(_code_of(wanted))
    impl_async = _is_async(_code_of(found))
    impl_generator = _generator_kind(_code_of(found))
    if proto_async and not impl_async:
        yield ConformanceProblem(
            name, "async", f"is {_FUNCTION_WORDS[impl_generator]}, but the protocol method is async (callers await it)"
        )
    elif impl_async and not proto_async:
        yield ConformanceProblem(
            name, "async", "is async (returns a coroutine), but the protocol method is sync (callers never await it)"
        )
    elif impl_generator is not None and not _return_admits(proto_sig.return_annotation, impl_generator):
        # A plain protocol method whose result is not an iterator: the caller
        # wants the call itself to do the work (forward_batch_generation,
        # alloc_memory_pool...), and a generator's body waits for iteration.
        noun = "an async generator" if impl_generator == "async generator" else "a generator"
        yield ConformanceProblem(
            name,
            "generator",
            f"is {_FUNCTION_WORDS[impl_generator]}: calling it returns {noun} and runs none of its body, "
            "but callers expect the call to do the work",
        )


def _optional(param: inspect.Parameter) -> bool:
    return param.default is not inspect.Parameter.empty


def _signature_problems(proto: inspect.Signature, impl: inspect.Signature) -> Iterator[str]:
    """Every way in which a call allowed by ``proto`` would fail against ``impl``."""
    impl_params = list(impl.parameters.values())
    impl_positional = [p for p in impl_params if p.kind in _POSITIONAL]
    impl_by_name = {p.name: p for p in impl_params if p.kind in _BY_NAME}
    impl_var_args = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in impl_params)
    impl_var_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in impl_params)
    filled: set[str] = set()
    position = 0

    def needs_default(proto_param: inspect.Parameter, impl_param: inspect.Parameter) -> Iterator[str]:
        if _optional(proto_param) and not _optional(impl_param):
            yield (
                f"parameter {proto_param.name!r} is optional in the protocol (callers may omit it) "
                f"but {impl_param.name!r} has no default"
            )

    for param in proto.parameters.values():
        if param.kind in _POSITIONAL:
            index = position
            position += 1
            if index < len(impl_positional):
                target = impl_positional[index]
                filled.add(target.name)
                if param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
                    # Callers may pass it by position or by name; both must land here.
                    if target.kind is inspect.Parameter.POSITIONAL_ONLY:
                        yield (
                            f"parameter {param.name!r} may be passed by keyword, "
                            f"but {target.name!r} is positional-only"
                        )
                    elif target.name != param.name:
                        yield (
                            f"parameter {param.name!r} (position {index}) is renamed "
                            f"{target.name!r}; callers passing it by keyword would fail"
                        )
                yield from needs_default(param, target)
            elif not impl_var_args:
                yield (
                    f"parameter {param.name!r} is passed positionally (position {index}), "
                    f"but only {len(impl_positional)} positional parameter(s) are accepted"
                )
            elif param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and not impl_var_kwargs:
                yield f"parameter {param.name!r} may be passed by keyword, but only *args would take it"
        elif param.kind is inspect.Parameter.KEYWORD_ONLY:
            target_or_none = impl_by_name.get(param.name)
            if target_or_none is not None:
                if target_or_none.name in filled:
                    yield (
                        f"keyword {param.name!r} names a parameter that already receives "
                        "a positional argument"
                    )
                filled.add(target_or_none.name)
                yield from needs_default(param, target_or_none)
            elif impl_var_kwargs:
                continue
            elif any(p.name == param.name for p in impl_positional):
                filled.add(param.name)  # reported here; not again as an extra parameter
                yield (
                    f"keyword {param.name!r} cannot be passed: it is positional-only in the "
                    "implementation, but callers pass it by keyword"
                )
            else:
                yield f"keyword {param.name!r} cannot be passed: no such parameter and no **kwargs"
        elif param.kind is inspect.Parameter.VAR_POSITIONAL:
            if not impl_var_args:
                yield f"the protocol accepts *{param.name}, the implementation has no *args"
        elif not impl_var_kwargs:
            yield f"the protocol accepts **{param.name}, the implementation has no **kwargs"

    for extra in impl_params:
        if extra.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if extra.name in filled or _optional(extra):
            continue
        yield f"extra required parameter {extra.name!r}: callers never pass it"


# -- the check ------------------------------------------------------------------


def _type_name(cls: type) -> str:
    # Read past metaclass overrides, as _static_mro does.
    try:
        module: object = type.__dict__["__module__"].__get__(cls)
        qualname: object = type.__dict__["__qualname__"].__get__(cls)
    except Exception:
        return repr(cls)
    if not isinstance(qualname, str):
        return repr(cls)
    return f"{module}.{qualname}" if isinstance(module, str) and module else qualname


def describe_target(target: object) -> str:
    """The dotted name of what was checked: a class, a function, or an instance of a class."""
    if issubclass(type(target), type):
        return _type_name(cast(type, target))
    if issubclass(type(target), (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        module = getattr(target, "__module__", None)
        qualname = getattr(target, "__qualname__", None)
        if isinstance(qualname, str):
            return f"{module}.{qualname}" if isinstance(module, str) and module else qualname
    return f"{_type_name(type(target))} instance"


def abstract_members(cls: type) -> tuple[str, ...]:
    """The names of ``cls``'s abstract members, sorted; empty when it can be instantiated.

    Read statically (``type.__dict__["__abstractmethods__"]``, the set that
    ``abc`` maintains and ``object.__new__`` refuses to instantiate), so no
    metaclass ``__getattr__`` runs. Equivalent to ``inspect.isabstract``: that
    flag is set exactly when this set is non-empty.
    """
    try:
        names: object = type.__dict__["__abstractmethods__"].__get__(cls)
    except Exception:  # AttributeError: not an ABC, nothing abstract
        return ()
    if not isinstance(names, (frozenset, set, tuple, list)):
        return ()
    return tuple(sorted(str(name) for name in cast("frozenset[object]", names)))


def _member_problems(
    cls: type, instance: object, name: str, wanted: _Found, target: object
) -> Iterator[ConformanceProblem]:
    if name == "__call__" and instance is _MISSING:
        # A class against a callable protocol: the class itself is the
        # callable, and calling it runs its constructor.
        found: _Found | None = _Found("method", target, bound=False)
    elif name == "__call__" and issubclass(type(target), _PLAIN_CALLABLES):
        # A function (or partial, bound method) given as the factory itself.
        found = _Found("method", target, bound=False)
    elif name == "__call__":
        # Any other instance: its class's __call__, read statically. Never
        # inspect.signature(instance), which reads instance.__signature__ and
        # so would run the instance's __getattr__.
        found = _lookup(cls, _MISSING, name)
    else:
        found = _lookup(cls, instance, name)

    if found is None:
        message = f"not defined (needed as {_SHAPE_WORDS[wanted.shape]}; __getattr__ does not count)"
        if instance is _MISSING and wanted.shape != "method":
            # A class is checked through its namespaces: an attribute that only
            # __init__ assigns cannot be seen there (mypy and pyright do see it).
            message += f"; if __init__ sets it, declare it on the class too (e.g. '{name}: <type>')"
        yield ConformanceProblem(name, "missing", message)
        return

    if wanted.shape == "method":
        if found.shape == "attribute" and found.func is not None:
            # A callable stored as a value (set in __init__, or a class-level
            # partial): called as it is, nothing bound.
            found = _Found("method", found.func, bound=False)
        if found.shape != "method":
            yield ConformanceProblem(name, "kind", f"is {_SHAPE_WORDS[found.shape]}, but the protocol has a method")
            return
        yield from _callable_problems(name, wanted, found)
        return

    if found.shape == "method":
        yield ConformanceProblem(
            name, "kind", f"is a method, but the protocol has {_SHAPE_WORDS[wanted.shape]} (read without calling it)"
        )
    elif wanted.shape in ("attribute", "property") and found.shape == "readonly-property":
        # Callers may assign it; a property without a setter raises on that.
        yield ConformanceProblem(name, "kind", f"is a read-only property, but the protocol has {_SHAPE_WORDS[wanted.shape]} that callers may set")


_PLAIN_CALLABLES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)

# Object addresses in error messages differ from run to run; results must not.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _exception_words(exc: BaseException) -> str:
    return _ADDRESS.sub("", f"{type(exc).__name__}: {exc}")


def _callable_problems(name: str, wanted: _Found, found: _Found) -> Iterator[ConformanceProblem]:
    if found.unreadable is not None:
        yield ConformanceProblem(name, "unverifiable", found.unreadable)
        return
    proto_sig = _protocol_signature(wanted)
    yield from _call_kind_problems(name, wanted, found, proto_sig)
    try:
        impl_sig = _signature(found.func, bound=found.bound)
    except _NoSelfError:
        yield ConformanceProblem(
            name, "signature", "has no parameter for self: a call on an instance passes one it cannot take"
        )
        return
    except Exception as exc:  # C callables, odd __signature__: report, never crash
        yield ConformanceProblem(name, "unverifiable", f"signature cannot be read ({_exception_words(exc)})")
        return
    for message in _signature_problems(proto_sig, impl_sig):
        yield ConformanceProblem(name, "signature", message)


def verify_conformance(obj_or_cls: object, protocol: type | Any) -> ConformanceResult:
    """Check a class (or an instance) against a protocol, beyond ``isinstance``.

    Reports, for every member of ``protocol`` (in definition order): a missing
    member, a method where a property or attribute is expected or the other
    way round, parameters that the protocol's callers could not pass (by
    position or by keyword), extra required parameters, missing defaults, and
    sync/async mismatches. A class's ``__getattr__`` never supplies a member.

    ``protocol`` is a ``typing_extensions.Protocol`` class (a parametrised
    generic one such as ``DraftWorkerFactory[TpModelWorker]`` works too). A
    class checked against a callable protocol (``DraftWorkerFactory``) is
    checked by its constructor signature. Never raises for an odd target;
    raises ``TypeError`` only when ``protocol`` is not a protocol.

    Called by ``validate_draft_worker_cls`` and by the ``spec-protocols`` gate.
    """
    proto_cls: object = get_origin(protocol) or protocol
    if not isinstance(proto_cls, type) or not is_protocol(proto_cls):
        raise TypeError(f"verify_conformance() needs a Protocol class, got {protocol!r}")
    # type() and issubclass(), not isinstance(): isinstance() falls back to
    # reading __class__, which runs an instance's __getattribute__.
    if issubclass(type(obj_or_cls), type):
        cls: type = cast(type, obj_or_cls)
        instance: object = _MISSING
    else:
        cls = type(obj_or_cls)
        instance = obj_or_cls
    problems: list[ConformanceProblem] = []
    for name, wanted in _protocol_members(proto_cls):
        try:
            problems.extend(_member_problems(cls, instance, name, wanted, obj_or_cls))
        except Exception as exc:  # a shape nobody anticipated: report it, never crash
            problems.append(ConformanceProblem(name, "unverifiable", f"could not be inspected ({_exception_words(exc)})"))
    return ConformanceResult(
        target=describe_target(obj_or_cls),
        protocol=_describe_protocol(proto_cls),
        problems=tuple(problems),
    )


def _describe_protocol(protocol: type) -> str:
    return protocol.__qualname__


def verify_call(target: object, keywords: Sequence[str], *, member: str = "__call__") -> tuple[ConformanceProblem, ...]:
    """The problems of calling ``target(**{k: ... for k in keywords})``: every
    keyword it cannot take, every required parameter the call leaves unfilled.

    A class is called through its constructor. This is the check a callable
    protocol's ``__call__`` makes (``DraftWorkerFactory``), for a keyword set
    that is data rather than a protocol: each sglang release passes its own
    keywords to ``draft_worker_cls`` and to the spec worker's class.
    """
    wanted = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY) for name in keywords]
    )
    try:
        actual = _signature(target, bound=False)
    except Exception as exc:  # C callables, odd __signature__: report, never crash
        return (ConformanceProblem(member, "unverifiable", f"signature cannot be read ({_exception_words(exc)})"),)
    return tuple(ConformanceProblem(member, "signature", message) for message in _signature_problems(wanted, actual))


def verify_method_call(
    cls: type,
    name: str,
    *,
    positional: tuple[int, int],
    keywords: Sequence[str],
    optional_keywords: Sequence[str] = (),
) -> tuple[ConformanceProblem, ...]:
    """The problems of calling method ``name`` of ``cls``'s instances the way
    one sglang release calls it: between ``positional[0]`` and
    ``positional[1]`` positional arguments, every one of ``keywords`` and
    possibly ``optional_keywords``.

    The gate uses it for a release outside the supported range, whose calls
    are data read from its source rather than a protocol's signature. A
    member that is absent or not a method is left to
    :func:`verify_conformance` (its kind is a protocol's business, not a
    call's).
    """
    found = _lookup(cls, _MISSING, name)
    if found is None or found.shape != "method" or found.func is None:
        return ()
    if found.unreadable is not None:
        return (ConformanceProblem(name, "unverifiable", found.unreadable),)
    fewest, most = positional
    params = [
        inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY, default=None if i >= fewest else inspect.Parameter.empty)
        for i in range(most)
    ]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in keywords]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None) for k in optional_keywords if k not in keywords]
    wanted = inspect.Signature(params)
    try:
        actual = _signature(found.func, bound=found.bound)
    except _NoSelfError:
        return (ConformanceProblem(name, "signature", "has no parameter for self: a call on an instance passes one it cannot take"),)
    except Exception as exc:  # C callables, odd __signature__: report, never crash
        return (ConformanceProblem(name, "unverifiable", f"signature cannot be read ({_exception_words(exc)})"),)
    return tuple(ConformanceProblem(name, "signature", message) for message in _signature_problems(wanted, actual))
