"""A protocol's members on the instance sglang built, fetched as sglang fetches them.

``getattr(instance, name)``, as the scheduler and ``BaseSpecWorker``'s
defaults read a member: whatever the instance gives counts (an attribute set
in ``__init__``, a member a base's ``__init_subclass__`` or a class decorator
installed, a ``functools.singledispatchmethod``, what ``__getattr__``
delegates to), and what it lacks is missing. A method's value is bound as
sglang calls it (the protocol's signature, or the registration's branch
shapes: ``supports_overlap=False`` passes ``pp_proxy_tensors=``, not
``on_publish=``); sync, async and generator functions are told apart on the
value itself. Nothing is called: a method's body runs no code here (a
property's getter runs, as sglang's read of it does).

Runs in the replay's driver process (sglang and the plugin imported).
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from spec_protocols._member_shapes import Found, protocol_member_shapes
from spec_protocols._verify import _generator_kind, _is_async, _protocol_signature, _return_admits, _signature_problems  # pyright: ignore[reportPrivateUsage]
from spec_protocols.gate._contract import CallShape
from spec_protocols.gate._findings import ReplayFinding

__all__ = ["Fetched", "call_signature", "fetch_members"]


@dataclass(frozen=True, slots=True)
class Fetched:
    """What the instance checks found: the problems, and what they verified."""

    findings: tuple[ReplayFinding, ...]
    #: (member, claim): ``exists`` (the instance gives it), ``kind`` (as the
    #: kind sglang uses), ``call`` (it takes sglang's call).
    evidence: tuple[tuple[str, str], ...]


def call_signature(shape: CallShape) -> inspect.Signature:
    """A call shape as the signature of what it may pass: its positional arguments, then its keywords."""
    fewest, most = shape.positional
    params = [
        inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY, default=None if i >= fewest else inspect.Parameter.empty)
        for i in range(most)
    ]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in shape.keywords]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None) for k in shape.optional_keywords if k not in shape.keywords]
    return inspect.Signature(params)


def fetch_members(
    instance: object,
    protocol: type,
    members: Sequence[str] | None,
    calls: Mapping[str, tuple[CallShape, ...]],
    site: str,
    stopped: Callable[[BaseException], ReplayFinding],
) -> Fetched:
    """Every member of ``protocol`` the release calls (``members``; None: all)
    on ``instance``; ``calls``: the members whose calls the registration
    selects, in place of the protocol's signature; ``site``: where sglang
    makes them; ``stopped``: the finding of an exception a getter raised."""
    findings: list[ReplayFinding] = []
    evidence: list[tuple[str, str]] = []
    for name, wanted in protocol_member_shapes(protocol):
        if members is not None and name not in members:
            continue
        found, seen = _member(instance, name, wanted, calls.get(name), site, stopped)
        findings.extend(found)
        evidence.extend((name, claim) for claim in seen)
    return Fetched(tuple(findings), tuple(evidence))


_ABSENT: Any = object()


def _member(
    instance: object,
    name: str,
    wanted: Found,
    shapes: tuple[CallShape, ...] | None,
    site: str,
    stopped: Callable[[BaseException], ReplayFinding],
) -> tuple[list[ReplayFinding], list[str]]:
    try:
        value = getattr(instance, name, _ABSENT)
    except Exception as error:  # a getter that raised: the boundary module says whose it is
        return [replace(stopped(error), member=name)], []
    if value is _ABSENT:
        what = "a method" if wanted.shape == "method" else "a value"
        return [ReplayFinding(name, "missing", f"getattr(instance, {name!r}) finds nothing; sglang needs {what}", site)], []
    if wanted.shape != "method":
        if inspect.ismethod(value) and getattr(value, "__self__", None) is instance:
            return [ReplayFinding(name, "kind", "it is a method, but sglang reads it as a value (without calling it)", site)], ["exists"]
        return [], ["exists", "kind"]
    if not callable(value):
        return [ReplayFinding(name, "kind", f"it is {type(value).__name__} {value!r:.40}, but sglang calls it", site)], ["exists"]
    return _callable_findings(name, wanted, _dispatched(instance, name, wanted, value), shapes, site)


def _dispatched(instance: object, name: str, wanted: Found, value: object) -> object:
    """What a call of ``value`` runs, where the instance's class holds a
    ``functools.singledispatchmethod``: its ``(*args, **kwargs)`` wrapper takes
    any call and hands it to the implementation registered for the type of
    the first argument, so that implementation, bound to the instance, is
    what sglang's call meets (for the type the protocol declares that
    argument as; the default implementation where that type is not known)."""
    try:
        static: object = inspect.getattr_static(type(instance), name)
    except AttributeError:
        return value
    if not _is_singledispatchmethod(static):
        return value
    dispatcher: Any = getattr(static, "dispatcher")  # noqa: B009 - a singledispatchmethod of any implementation
    implementation: object = dispatcher.dispatch(_first_argument_type(wanted))
    bind: object = getattr(implementation, "__get__", None)
    return bind(instance, type(instance)) if callable(bind) else implementation


def _is_singledispatchmethod(obj: object) -> bool:
    return isinstance(obj, functools.singledispatchmethod)


def _first_argument_type(wanted: Found) -> type:
    """The class of the first argument sglang passes, as the protocol annotates it; ``object`` where unknown."""
    try:
        hints = typing.get_type_hints(wanted.func)
        first = next(iter(p for p in _protocol_signature(wanted).parameters.values()), None)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve here
        return object
    found = hints.get(first.name) if first is not None else None
    return found if isinstance(found, type) else object


def _callable_findings(
    name: str, wanted: Found, value: object, shapes: tuple[CallShape, ...] | None, site: str
) -> tuple[list[ReplayFinding], list[str]]:
    """A method's value against sglang's calls of it: sync or async, and each call bound."""
    found: list[ReplayFinding] = []
    proto = _protocol_signature(wanted)
    wanted_async = _is_async(wanted.func)
    if _is_async(value) != wanted_async:
        if wanted_async:
            found.append(ReplayFinding(name, "async", "it is sync, but sglang awaits it", site))
        else:
            found.append(ReplayFinding(name, "async", "it is async (returns a coroutine), but sglang never awaits it", site))
    generator = _generator_kind(value)
    if generator is not None and not _return_admits(proto.return_annotation, generator):
        found.append(ReplayFinding(name, "generator", f"it is a {generator} function: the call runs none of its body", site))
    try:
        actual = inspect.signature(value, follow_wrapped=False)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    except (TypeError, ValueError):
        return found, ["exists", "kind"]  # no signature to read (a C callable): the call is not judged here
    problems = list(_call_problems(proto, actual, shapes))
    where = _where(value)
    found = [replace(f, where=where) for f in found]
    found.extend(ReplayFinding(name, "signature", problem, site, where) for problem in problems)
    seen = ["exists", "kind"] if found else ["exists", "kind", "call"]
    return found, seen


def _where(value: object) -> str:
    """``file:line`` of the function behind ``value`` (a bound method's), where its source can be found."""
    inner: object = getattr(value, "__func__", value)
    if not callable(inner):
        return ""
    try:
        function = inspect.unwrap(inner)
        file = inspect.getsourcefile(function)
        _, line = inspect.getsourcelines(function)
    except (OSError, TypeError, ValueError):
        return ""
    return f"{file}:{line}" if file else ""


def _call_problems(proto: inspect.Signature, actual: inspect.Signature, shapes: tuple[CallShape, ...] | None) -> Iterator[str]:
    """How sglang's calls of the member fail against ``actual``: each of the
    registration's shapes where it selects them, else the protocol's signature."""
    wanted = [call_signature(shape) for shape in shapes] if shapes else [proto]
    seen: set[str] = set()
    for signature in wanted:
        for problem in _signature_problems(signature, actual):
            if problem not in seen:
                seen.add(problem)
                yield problem
