"""sglang's default members a worker keeps, run as the scheduler runs them, against the worker's draft.

A worker that keeps ``BaseSpecWorker``'s (or ``SpecWorkerBase``'s)
``init_cuda_graphs`` hands the scheduler's call to its draft worker
(``self.draft_worker.init_cuda_graphs()``, speculative/base_spec_worker.py):
whether that call binds on the draft is decided only on the instances, since
the draft may be chosen at run time (a table, ``importlib``, a class made by
a call). So the replay calls each kept default method with stand-in
arguments while each of the draft's methods that sglang calls (the
``DraftWorker`` protocol's) only binds its arguments: it raises the
``TypeError`` CPython would raise for a call that does not bind, and
otherwise returns a stand-in, so no method body of the draft runs (no model,
no CUDA graph). A property default was already read when the instance's
members were fetched.

Only a break at the boundary counts (:mod:`._boundary`): what a default
raises inside sglang's own code on the stand-ins says nothing about the plugin,
and is not a finding.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

import spec_protocols
from spec_protocols._member_shapes import protocol_member_shapes
from spec_protocols._verify import _protocol_signature  # pyright: ignore[reportPrivateUsage]
from spec_protocols.gate._checkers._replay._boundary import Sides, blame
from spec_protocols.gate._checkers._replay._standins import bind_or_raise
from spec_protocols.gate._findings import ReplayFinding

__all__ = ["kept_default_findings"]


def kept_default_findings(
    instance: object, draft: object, members: Sequence[str] | None, sides: Sides, site: str
) -> list[ReplayFinding]:
    """A finding for each default method ``instance`` keeps (``members``: those
    the release calls; None: all) whose call of ``draft`` does not bind."""
    found: list[ReplayFinding] = []
    with _binding_only(draft):
        for name, wanted in protocol_member_shapes(spec_protocols.SpecWorker):
            if wanted.shape != "method" or (members is not None and name not in members):
                continue
            if not _kept(type(instance), name, sides):
                continue
            try:
                method: object = getattr(instance, name)
            except Exception:  # noqa: BLE001 - the fetch of the member says so
                continue
            if not callable(method):
                continue
            args, kwargs = _standin_arguments(_protocol_signature(wanted))
            try:
                method(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - judged: only a break at the boundary counts
                judged = blame(error, sides, entered=True)
                if judged.verdict == "boundary":
                    said = f"it keeps sglang's default {name}, whose call of its draft worker does not bind: {judged.said}"
                    found.append(ReplayFinding(name, "raised", said, site, judged.where))
    return found


def _kept(cls: type, name: str, sides: Sides) -> bool:
    """Whether ``cls`` has ``name`` from a class outside the plugin's own
    packages: a default of sglang's base or of this library's."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass.__module__.partition(".")[0] not in sides.packages
    return False


def _standin_arguments(signature: inspect.Signature) -> tuple[list[object], dict[str, object]]:
    """A stand-in for each argument a call of ``signature`` must pass."""
    args: list[object] = []
    kwargs: dict[str, object] = {}
    for parameter in signature.parameters.values():
        if parameter.default is not inspect.Parameter.empty:
            continue
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            args.append(mock.MagicMock(name=parameter.name))
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = mock.MagicMock(name=parameter.name)
    return args, kwargs


@contextmanager
def _binding_only(draft: object) -> Generator[None]:
    """``draft``'s methods of the ``DraftWorker`` protocol replaced, on the
    instance, by ones that only bind their arguments; put back after."""
    placed: list[tuple[str, bool, object]] = []
    if draft is not None and not isinstance(draft, mock.NonCallableMock):
        for name, wanted in protocol_member_shapes(spec_protocols.DraftWorker):
            if wanted.shape != "method":
                continue
            placed.extend(_place(draft, name))
    try:
        yield
    finally:
        namespace = _namespace(draft) if placed else {}
        for name, had, old in reversed(placed):
            if had:
                namespace[name] = old
            else:
                namespace.pop(name, None)


def _place(draft: object, name: str) -> list[tuple[str, bool, object]]:
    try:
        real: object = getattr(draft, name)
        namespace = _namespace(draft)
    except Exception:  # noqa: BLE001 - no such member, or no instance namespace (__slots__): left as it is
        return []
    if not callable(real):
        return []
    try:
        signature = inspect.signature(real)
    except (TypeError, ValueError):
        return []
    had, old = name in namespace, namespace.get(name)
    namespace[name] = _binder(real, signature)
    return [(name, had, old)]


def _namespace(obj: object) -> dict[str, Any]:
    """The instance's own namespace (its ``__dict__``); ``TypeError`` where it has none."""
    return vars(obj)


def _binder(real: Callable[..., object], signature: inspect.Signature) -> Callable[..., object]:
    qualname = getattr(real, "__qualname__", getattr(type(real), "__qualname__", "draft member"))

    def bind_only(*args: object, **kwargs: object) -> object:
        bind_or_raise(signature, qualname, *args, **kwargs)
        return mock.MagicMock(name=f"{qualname}()")

    return bind_only
