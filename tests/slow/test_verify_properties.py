"""Property tests: on any class shape, the runtime checks never crash and always agree with themselves.

Hypothesis builds classes from random members (plain, async, static and class
methods with random signatures, properties, properties that raise, data
attributes, bare annotations, ``__signature__`` values that break
``inspect.signature``), with and without a ``__getattr__`` and a metaclass.
Slow (tests/slow/): hypothesis's examples take several seconds per test.
"""

from __future__ import annotations

import inspect
import keyword
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typing_extensions import get_protocol_members

from spec_protocols import (
    DraftWorker,
    DraftWorkerFactory,
    SpecWorker,
    SupportsPipelineProxy,
    validate_draft_worker_cls,
    verify_conformance,
)
from spec_protocols._verify import ProblemKind

PROTOCOLS: tuple[Any, ...] = (SpecWorker, DraftWorker, DraftWorkerFactory, SupportsPipelineProxy)
KINDS: frozenset[ProblemKind] = frozenset({"missing", "kind", "signature", "async", "unverifiable"})

# Mostly names the protocols ask for, so that shapes and signatures get checked.
PROTOCOL_NAMES = sorted(set().union(*(get_protocol_members(p) for p in PROTOCOLS)) - {"__call__"})
PARAM_NAMES = ["batch", "on_publish", "rid", "natural_stop", "memory_pool_config", "server_args", "gpu_id", "x", "y"]

P = inspect.Parameter
KIND_ORDER = [P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD, P.VAR_POSITIONAL, P.KEYWORD_ONLY, P.VAR_KEYWORD]


@st.composite
def signatures(draw: st.DrawFn) -> inspect.Signature:
    names = draw(st.lists(st.sampled_from(PARAM_NAMES), unique=True, max_size=5))
    params: list[inspect.Parameter] = []
    for name in names:
        kind = draw(st.sampled_from(KIND_ORDER))
        default = draw(st.sampled_from([P.empty, None])) if kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD) else P.empty
        params.append(P(name, kind, default=default))
    params.sort(key=lambda p: KIND_ORDER.index(p.kind))
    # Keep it a valid signature: one *args and one **kwargs at most, and no
    # positional parameter without a default after one with a default.
    valid: list[inspect.Parameter] = []
    seen_default = False
    for param in params:
        if param.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD) and any(v.kind == param.kind for v in valid):
            continue
        if param.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            if param.default is not P.empty:
                seen_default = True
            elif seen_default:
                param = param.replace(default=None)
        valid.append(param)
    self_kind = P.POSITIONAL_ONLY if valid and valid[0].kind == P.POSITIONAL_ONLY else P.POSITIONAL_OR_KEYWORD
    self_param = [P("self", self_kind)] if draw(st.booleans()) else []
    return inspect.Signature(self_param + valid)


def with_signature(func: Any, sig: Any) -> Any:
    func.__signature__ = sig
    return func


@st.composite
def members(draw: st.DrawFn) -> Any:
    shape = draw(
        st.sampled_from(
            ["method", "async", "staticmethod", "classmethod", "property", "raising-property",
             "value", "callable-value", "annotation", "bad-signature"]
        )
    )
    sig = draw(signatures())

    def plain(*args: Any, **kwargs: Any) -> None: ...

    async def coro(*args: Any, **kwargs: Any) -> None: ...

    def boom(self: Any) -> Any:
        raise RuntimeError("a getter that must never run")

    if shape == "method":
        return with_signature(plain, sig)
    if shape == "async":
        return with_signature(coro, sig)
    if shape == "staticmethod":
        return staticmethod(with_signature(plain, sig))
    if shape == "classmethod":
        return classmethod(with_signature(plain, sig))
    if shape == "property":
        return property(lambda self: 0)
    if shape == "raising-property":
        return property(boom)
    if shape == "value":
        return draw(st.sampled_from([None, 0, "x", (), {}]))
    if shape == "callable-value":
        return with_signature(type("CallableValue", (), {"__call__": plain})(), sig)
    if shape == "annotation":
        return ANNOTATION
    return with_signature(plain, draw(st.sampled_from(["not a signature", 3, property(boom)])))


ANNOTATION = object()  # marker: declare the name as a bare annotation


class Meta(type):
    def __getattr__(cls, name: str) -> Any:
        raise RuntimeError("a metaclass __getattr__ that must never run")


@st.composite
def classes(draw: st.DrawFn) -> type:
    names = draw(st.lists(st.sampled_from(PROTOCOL_NAMES + ["extra", "__init__", "__call__"]), unique=True, max_size=12))
    namespace: dict[str, Any] = {"__annotations__": {}}
    for name in names:
        member = draw(members())
        if member is ANNOTATION:
            namespace["__annotations__"][name] = "int"
        else:
            namespace[name] = member
    if draw(st.booleans()):
        namespace["__getattr__"] = lambda self, name: (lambda *a, **k: None)
    metaclass = Meta if draw(st.booleans()) else type
    bases: tuple[type, ...] = draw(st.sampled_from([(), (object,), (Exception,)]))
    cls: type = metaclass("Generated", bases, namespace)
    return cls


def defined_names(cls: type) -> set[str]:
    found: set[str] = set()
    for klass in type.__dict__["__mro__"].__get__(cls):
        found.update(vars(klass))
        found.update(vars(klass).get("__annotations__", {}))
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=classes(), protocol=st.sampled_from(PROTOCOLS))
def test_verify_conformance_never_crashes_and_is_deterministic(cls: type, protocol: Any) -> None:
    first = verify_conformance(cls, protocol)
    second = verify_conformance(cls, protocol)
    assert first == second
    assert first.format() == second.format()
    assert first.ok == (first.problems == ())
    members = get_protocol_members(protocol)
    assert {p.kind for p in first.problems} <= KINDS
    assert {p.member for p in first.problems} <= members
    # A member that the class does not define is reported missing, whatever
    # its __getattr__ says; one that it defines never is.
    missing = {p.member for p in first.problems if p.kind == "missing"}
    if protocol is not DraftWorkerFactory:
        assert missing == members - defined_names(cls)
    # Problems come grouped by member, members in one fixed order.
    order = [p.member for p in first.problems]
    assert order == sorted(order, key=order.index)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=classes(), protocol=st.sampled_from(PROTOCOLS))
def test_instances_are_checked_without_running_their_code(cls: type, protocol: Any) -> None:
    try:
        instance = object.__new__(cls)
    except TypeError:  # e.g. Exception subclasses need their own __new__
        instance = cls.__new__(cls)
    assert verify_conformance(instance, protocol) == verify_conformance(instance, protocol)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=st.one_of(classes(), st.sampled_from([None, 3, "x", len, int, dict, type, object])))
def test_validate_draft_worker_cls_returns_the_class_or_raises_type_error(cls: Any) -> None:
    outcomes = []
    for _ in range(2):
        try:
            outcomes.append(("ok", validate_draft_worker_cls(cls)))
        except TypeError as exc:
            outcomes.append(("rejected", str(exc)))
    assert outcomes[0] == outcomes[1]
    verdict, value = outcomes[0]
    if verdict == "ok":
        assert value is cls
        assert verify_conformance(cls, DraftWorker).ok
    else:
        assert "cannot be used as draft_worker_cls" in value


def test_parameter_names_are_identifiers() -> None:
    assert all(name.isidentifier() and not keyword.iskeyword(name) for name in PARAM_NAMES)
