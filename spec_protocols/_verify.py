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
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_origin

from typing_extensions import is_protocol

from spec_protocols._member_shapes import (
    MISSING,
    SHAPE_WORDS,
    Found,
    exception_words,
    lookup,
    marked_coroutine,
    protocol_stub,
    protocol_member_shapes,
    type_name,
)

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


# -- signatures ---------------------------------------------------------------

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _signature(func: object, *, bound: bool) -> inspect.Signature:
    """The signature a caller meets; raises on anything unreadable.

    ``follow_wrapped=False``: a ``functools.wraps`` wrapper is what sglang
    calls, so its own parameters decide (``wrapper(self, *args)`` takes no
    keyword), never those of the ``__wrapped__`` original. A ``__signature__``
    set on purpose still counts.
    """
    sig = inspect.signature(func, follow_wrapped=False)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType] -- any callable; errors are reported by the caller
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
def _protocol_signature(member: Found) -> inspect.Signature:
    return _signature(member.func, bound=member.bound)


class _NoSelfError(Exception):
    """A method with no parameter to receive the instance (or class)."""


def _is_async(func: object) -> bool:
    """Whether calling ``func`` returns a coroutine, judged on the object itself
    (a decorator's wrapper, not what it wraps): a coroutine function, one
    marked so (``inspect.markcoroutinefunction``, asyncio's marker), or a
    callable object whose class's ``__call__`` is one."""
    try:
        if inspect.iscoroutinefunction(func) or marked_coroutine(func):
            return True
        if issubclass(type(func), (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)):
            return False
        call = lookup(type(func), MISSING, "__call__")
        return call is not None and call.func is not None and inspect.iscoroutinefunction(call.func)
    except Exception:
        return False


def _code_of(found: Found) -> object:
    return found.code if found.code is not None else found.func


def _generator_kind(func: object) -> Literal["generator", "async generator"] | None:
    """A generator function's kind, judged on the object sglang calls (a
    callable object by its class's ``__call__``)."""
    try:
        if not issubclass(type(func), (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)):
            call = lookup(type(func), MISSING, "__call__")
            func = call.func if call is not None and call.func is not None else func
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


def _call_kind_problems(name: str, wanted: Found, found: Found, proto_sig: inspect.Signature) -> Iterator[ConformanceProblem]:
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


@dataclass(frozen=True)
class _Accepts:
    """What an implementation's signature accepts, by kind of parameter."""

    params: tuple[inspect.Parameter, ...]
    positional: tuple[inspect.Parameter, ...]
    by_name: Mapping[str, inspect.Parameter]
    var_args: bool
    var_kwargs: bool

    @classmethod
    def of(cls, impl: inspect.Signature) -> _Accepts:
        params = tuple(impl.parameters.values())
        return cls(
            params,
            tuple(p for p in params if p.kind in _POSITIONAL),
            {p.name: p for p in params if p.kind in _BY_NAME},
            any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params),
            any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params),
        )


def _signature_problems(proto: inspect.Signature, impl: inspect.Signature) -> Iterator[str]:
    """Every way in which a call allowed by ``proto`` would fail against ``impl``."""
    accepts = _Accepts.of(impl)
    # The implementation's parameters that some argument of the call fills.
    filled: set[str] = set()
    position = 0
    for param in proto.parameters.values():
        if param.kind in _POSITIONAL:
            yield from _positional_problems(param, position, accepts, filled)
            position += 1
        elif param.kind is inspect.Parameter.KEYWORD_ONLY:
            yield from _keyword_problems(param, accepts, filled)
        elif param.kind is inspect.Parameter.VAR_POSITIONAL:
            if not accepts.var_args:
                yield f"the protocol accepts *{param.name}, the implementation has no *args"
        elif not accepts.var_kwargs:
            yield f"the protocol accepts **{param.name}, the implementation has no **kwargs"
    for extra in accepts.params:
        if extra.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if extra.name in filled or _optional(extra):
            continue
        yield f"extra required parameter {extra.name!r}: callers never pass it"


def _needs_default(proto_param: inspect.Parameter, impl_param: inspect.Parameter) -> Iterator[str]:
    if _optional(proto_param) and not _optional(impl_param):
        yield (
            f"parameter {proto_param.name!r} is optional in the protocol (callers may omit it) "
            f"but {impl_param.name!r} has no default"
        )


def _positional_problems(param: inspect.Parameter, index: int, accepts: _Accepts, filled: set[str]) -> Iterator[str]:
    """A protocol parameter that callers may pass at position ``index``."""
    if index < len(accepts.positional):
        target = accepts.positional[index]
        filled.add(target.name)
        if param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
            # Callers may pass it by position or by name; both must land here.
            if target.kind is inspect.Parameter.POSITIONAL_ONLY:
                yield f"parameter {param.name!r} may be passed by keyword, but {target.name!r} is positional-only"
            elif target.name != param.name:
                yield (
                    f"parameter {param.name!r} (position {index}) is renamed "
                    f"{target.name!r}; callers passing it by keyword would fail"
                )
        yield from _needs_default(param, target)
    elif not accepts.var_args:
        yield (
            f"parameter {param.name!r} is passed positionally (position {index}), "
            f"but only {len(accepts.positional)} positional parameter(s) are accepted"
        )
    elif param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and not accepts.var_kwargs:
        yield f"parameter {param.name!r} may be passed by keyword, but only *args would take it"


def _keyword_problems(param: inspect.Parameter, accepts: _Accepts, filled: set[str]) -> Iterator[str]:
    """A keyword-only protocol parameter: callers pass it by name."""
    target = accepts.by_name.get(param.name)
    if target is not None:
        if target.name in filled:
            yield f"keyword {param.name!r} names a parameter that already receives a positional argument"
        filled.add(target.name)
        yield from _needs_default(param, target)
    elif accepts.var_kwargs:
        return
    elif any(p.name == param.name for p in accepts.positional):
        filled.add(param.name)  # reported here; not again as an extra parameter
        yield (
            f"keyword {param.name!r} cannot be passed: it is positional-only in the "
            "implementation, but callers pass it by keyword"
        )
    else:
        yield f"keyword {param.name!r} cannot be passed: no such parameter and no **kwargs"


# -- the check ------------------------------------------------------------------


def describe_target(target: object) -> str:
    """The dotted name of what was checked: a class, a function, or an instance of a class."""
    if issubclass(type(target), type):
        return type_name(cast(type, target))
    if issubclass(type(target), (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        module = getattr(target, "__module__", None)
        qualname = getattr(target, "__qualname__", None)
        if isinstance(qualname, str):
            return f"{module}.{qualname}" if isinstance(module, str) and module else qualname
    return f"{type_name(type(target))} instance"


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
    cls: type, instance: object, name: str, wanted: Found, target: object
) -> Iterator[ConformanceProblem]:
    if name == "__call__" and instance is MISSING:
        # A class against a callable protocol: the class itself is the
        # callable, and calling it runs its constructor.
        found: Found | None = Found("method", target, bound=False)
    elif name == "__call__" and issubclass(type(target), _PLAIN_CALLABLES):
        # A function (or partial, bound method) given as the factory itself.
        found = Found("method", target, bound=False)
    elif name == "__call__":
        # Any other instance: its class's __call__, read statically. Never
        # inspect.signature(instance), which reads instance.__signature__ and
        # so would run the instance's __getattr__.
        found = lookup(cls, MISSING, name)
    else:
        found = lookup(cls, instance, name)

    stub = protocol_stub(cls, instance, name) if found is not None else None
    if stub is not None:
        yield ConformanceProblem(
            name,
            "missing",
            f"not implemented: inherited from the protocol {stub} itself, whose body is only '...' "
            "(calling it does nothing and returns None)",
        )
        return

    if found is None:
        message = f"not defined (needed as {SHAPE_WORDS[wanted.shape]}; __getattr__ does not count)"
        if instance is MISSING and wanted.shape != "method":
            # A class is checked through its namespaces: an attribute that only
            # __init__ assigns cannot be seen there (mypy and pyright do see it).
            message += f"; if __init__ sets it, declare it on the class too (e.g. '{name}: <type>')"
        yield ConformanceProblem(name, "missing", message)
        return

    if wanted.shape == "method":
        if found.shape == "attribute" and found.func is not None:
            # A callable stored as a value (set in __init__, or a class-level
            # partial): called as it is, nothing bound.
            found = Found("method", found.func, bound=False)
        if found.shape != "method":
            yield ConformanceProblem(name, "kind", f"is {SHAPE_WORDS[found.shape]}, but the protocol has a method")
            return
        yield from _callable_problems(name, wanted, found)
        return

    if found.shape == "method":
        yield ConformanceProblem(
            name, "kind", f"is a method, but the protocol has {SHAPE_WORDS[wanted.shape]} (read without calling it)"
        )
    elif wanted.shape in ("attribute", "property") and found.shape == "readonly-property":
        # Callers may assign it; a property without a setter raises on that.
        yield ConformanceProblem(name, "kind", f"is a read-only property, but the protocol has {SHAPE_WORDS[wanted.shape]} that callers may set")


_PLAIN_CALLABLES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)

def _callable_problems(name: str, wanted: Found, found: Found) -> Iterator[ConformanceProblem]:
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
        yield ConformanceProblem(name, "unverifiable", f"signature cannot be read ({exception_words(exc)})")
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
        instance: object = MISSING
    else:
        cls = type(obj_or_cls)
        instance = obj_or_cls
    problems: list[ConformanceProblem] = []
    for name, wanted in protocol_member_shapes(proto_cls):
        try:
            problems.extend(_member_problems(cls, instance, name, wanted, obj_or_cls))
        except Exception as exc:  # a shape nobody anticipated: report it, never crash
            problems.append(ConformanceProblem(name, "unverifiable", f"could not be inspected ({exception_words(exc)})"))
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
        return (ConformanceProblem(member, "unverifiable", f"signature cannot be read ({exception_words(exc)})"),)
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
    found = lookup(cls, MISSING, name)
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
        return (ConformanceProblem(name, "unverifiable", f"signature cannot be read ({exception_words(exc)})"),)
    return tuple(ConformanceProblem(name, "signature", message) for message in _signature_problems(wanted, actual))
