"""What the runtime probe finds in an imported module beyond what discovery read.

Discovery reads ``class`` statements; a class made by ``type(name, bases,
ns)``, returned by a factory function or built in a loop exists only once the
module runs. The probe, which imports the module anyway, lists the module's
own worker classes (:func:`classes_at_import`): module-level names bound to a
class that the module defines (``cls.__module__``), whose MRO holds one of
discovery's roots (``BaseSpecWorker``, ``SpecWorkerBase`` ->
``SpecWorker``; ``EagleDraftWorkerBase``, ``TpModelWorker`` ->
``DraftWorker``) or one of the protocols themselves (an explicit
``class W(SpecWorker)``).

And why an import failed (:func:`import_failure`): an exception raised by
the module's own code (a metaclass conflict, a ``NameError``) means the
class never exists and sglang can never get it: a failure. A missing
dependency (``ImportError``), ``sys.exit``, or an error of the environment
(``OSError``, ``RuntimeError``: no GPU, no driver), or one raised inside
another package's code, stays a skip: on the serving machine it may import.

Reads only namespaces (no ``getattr`` on target objects); imported by the
probe before any target code runs.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from spec_protocols._member_shapes import static_mro, type_name
from spec_protocols.gate._discovery import DRAFT_ROOTS, SPEC_ROOTS
from spec_protocols.gate._model import ProtocolName

__all__ = ["FoundClass", "FOUND_AT_IMPORT_NOTE", "classes_at_import", "import_failure"]

#: The note of a class only the import made.
FOUND_AT_IMPORT_NOTE = (
    "found when the module is imported (made by a call, not a class statement): only the runtime checker sees it"
)

#: The protocols a class that subclasses them explicitly is checked against.
_PROTOCOL_ROLES: Mapping[str, ProtocolName] = {
    "spec_protocols._protocols.SpecWorker": ProtocolName.SPEC_WORKER,
    "spec_protocols._protocols.DraftWorker": ProtocolName.DRAFT_WORKER,
}

#: Exceptions that say the environment lacks something (a dependency, a
#: device, a file), not that the module's code is wrong.
_ENVIRONMENT = (ImportError, OSError, RuntimeError, AssertionError, MemoryError)


@dataclass(frozen=True, slots=True)
class FoundClass:
    """A worker class an import made that the request did not name (made by
    ``type(...)``, a factory call or a loop), as the module binds it."""

    #: Where the module binds it (the attribute the scan found it under).
    qualname: str
    cls: type
    #: The protocols its bases hold it to, by name.
    protocols: tuple[str, ...]
    #: Whether it declares abstract members of its own (an intentional base).
    may_be_abstract: bool


def _roles(cls: type) -> tuple[str, ...]:
    protocols: set[str] = set()
    for klass in static_mro(cls)[1:]:
        dotted = type_name(klass)
        if dotted in SPEC_ROOTS:
            protocols.add(ProtocolName.SPEC_WORKER)
        elif dotted in DRAFT_ROOTS:
            protocols.add(ProtocolName.DRAFT_WORKER)
        elif dotted in _PROTOCOL_ROLES:
            protocols.add(_PROTOCOL_ROLES[dotted])
    return tuple(sorted(protocols))


def _own_abstract(cls: type) -> bool:
    """Whether the class declares an abstract member of its own (an intentional base)."""
    namespace: object = type.__dict__["__dict__"].__get__(cls)
    if not isinstance(namespace, Mapping):
        return False
    for value in cast("Mapping[str, object]", namespace).values():
        func: object = value.fget if isinstance(value, property) else value
        if issubclass(type(func), types.FunctionType) and cast(types.FunctionType, func).__dict__.get("__isabstractmethod__") is True:
            return True
    return False


def _is_protocol_class(cls: type) -> bool:
    namespace: object = type.__dict__["__dict__"].__get__(cls)
    return isinstance(namespace, Mapping) and namespace.get("_is_protocol") is True  # pyright: ignore[reportUnknownMemberType]


def _made_here(cls: type, defined_in: object, name: object) -> bool:
    """Whether the module ``name`` made ``cls``, not imported it.

    ``cls.__module__`` names the module whose frame called ``type.__new__``:
    ``type(name, (BaseSpecWorker,), ns)`` runs ``ABCMeta.__new__`` (the bases'
    metaclass, abc.py), so a class the plugin made without ``__module__`` in
    its namespace says ``abc``. Such a class was made here unless the module
    it names holds it under its ``__qualname__`` (where it was imported from)."""
    if defined_in == name:
        return True
    home = sys.modules.get(defined_in) if isinstance(defined_in, str) else None
    if home is None:
        return True
    try:
        qualname: object = type.__dict__["__qualname__"].__get__(cls)
        held: object = home
        for part in qualname.split(".") if isinstance(qualname, str) else ():
            namespace: object = object.__getattribute__(held, "__dict__")
            held = cast("Mapping[str, object]", namespace).get(part) if isinstance(namespace, Mapping) else None
    except Exception:
        return False
    return held is not cls


def classes_at_import(module: types.ModuleType, known: set[int]) -> list[FoundClass]:
    """The module's own worker classes, by the name it binds each to, that
    are not in ``known`` (the ``id`` of every class already requested)."""
    found: list[FoundClass] = []
    seen = set(known)
    namespace: dict[str, object] = dict(object.__getattribute__(module, "__dict__"))
    name = namespace.get("__name__")
    for attr, value in sorted(namespace.items()):
        if not issubclass(type(value), type) or id(value) in seen:
            continue
        cls = cast(type, value)
        try:
            defined_in: object = type.__dict__["__module__"].__get__(cls)
        except Exception:
            continue
        if not _made_here(cls, defined_in, name) or _is_protocol_class(cls):
            continue
        protocols = _roles(cls)
        if protocols:
            seen.add(id(cls))
            found.append(FoundClass(attr, cls, protocols, _own_abstract(cls)))
    return found


def import_failure(exc: BaseException, module_name: str) -> bool:
    """Whether ``exc``, raised importing ``module_name``, is the module's own
    code failing (so its classes never exist): raised in a frame of the
    target's own package, and not one that says the environment lacks
    something."""
    if isinstance(exc, _ENVIRONMENT) or not isinstance(exc, Exception):
        return False
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    raised_in = last.tb_frame.f_globals.get("__name__")
    package = module_name.partition(".")[0]
    return isinstance(raised_in, str) and raised_in.partition(".")[0] == package
