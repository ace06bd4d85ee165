"""Stand-ins for a native package that cannot load here: the runtime probe's, never a verdict's.

sglang's CPU path imports compiled kernels that only a CPU build of them
provides: ``sglang/kernels/ops/speculative/reconstruct_tree.py`` imports
``sgl_kernel.speculative`` when it finds neither CUDA, HIP nor XPU, and the
one ``sgl_kernel`` on PyPI (sglang-kernel, built for CUDA) raises
``ImportError`` at import on a machine without ``libcuda.so.1``. So
``ngram_worker`` never imported, and its worker class was never checked. As
documentation tools mock the imports they cannot satisfy, the probe imports
such a module again with a stand-in for that package: a module that answers
every name with a :class:`StandIn`, which answers every attribute and call
with another.

Which failure qualifies (:func:`native_failure`): an ``ImportError`` raised
while an *installed* package initialises (the innermost module-level frame of
the traceback is that package's, or the import of its compiled file failed)
that ships compiled extension modules, and that is neither the code under
check nor spec_protocols. A ``ModuleNotFoundError`` never does: an absent
package is installed (``requirements/``) or its worker is skipped.

What a stand-in never does is decide a verdict. A class that is a stand-in,
has a base or a metaclass from one (or from a stood-in module), or whose
checked members (any protocol's, and the constructors) are one, is skipped,
naming which (:func:`dependence`). A class that only *uses* the package
inside its methods is checked as it is: its members are its own.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import cast

__all__ = ["StandIn", "dependence", "native_failure", "stand_in", "stood_in"]

#: The top-level packages stood in, in this process.
_STOOD_IN: set[str] = set()


class StandIn:
    """Whatever a stood-in package's name is: every attribute, call and base class is another stand-in."""

    _stand_in_name: str

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_stand_in_name", name)

    def __getattr__(self, attribute: str) -> StandIn:
        # Dunders stay absent: inspect.unwrap, copy, pickle and the like ask
        # for them, and an answer would send them round in circles.
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return StandIn(f"{self._stand_in_name}.{attribute}")

    def __call__(self, *args: object, **kwargs: object) -> StandIn:
        return StandIn(f"{self._stand_in_name}(...)")

    def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type, ...]:
        # ``class X(stand_in.Base)``: a real class to derive from, marked so
        # that dependence() finds it in X's MRO.
        return (type(self._stand_in_name.rpartition(".")[2], (), {"__stand_in__": self._stand_in_name}),)

    def __iter__(self) -> Iterator[object]:
        return iter(())

    def __repr__(self) -> str:
        return f"<stand-in {self._stand_in_name}>"


class _Module(types.ModuleType):
    """A stood-in module: every name it is asked for is a :class:`StandIn`."""

    def __getattr__(self, attribute: str) -> StandIn:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return StandIn(f"{self.__name__}.{attribute}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every stood-in package and its submodules, ahead of the real finders."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] in _STOOD_IN:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _Module(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__path__ = []


_FINDER = _Finder()


def stood_in() -> frozenset[str]:
    """The packages stood in so far, in this process."""
    return frozenset(_STOOD_IN)


def stand_in(package: str) -> None:
    """Serve ``package`` (a top-level name) and its submodules as stand-ins from now on."""
    _STOOD_IN.add(package)
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def _ships_native_code(directory: Path) -> bool:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for _, _, files in os.walk(directory):
        if any(f.endswith(suffixes) for f in files):
            return True
    return False


def _failing_package(exc: ImportError) -> tuple[str, Path | None] | None:
    """The top-level package whose initialisation raised ``exc``, and its folder (None: unknown)."""
    if exc.path is not None and exc.path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) and exc.name:
        # The import system could not load a compiled file (dlopen failed).
        return exc.name.partition(".")[0], None
    frame: types.FrameType | None = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "<module>":
            frame = tb.tb_frame
        tb = tb.tb_next
    if frame is None:
        return None
    name, file = frame.f_globals.get("__name__"), frame.f_globals.get("__file__")
    if not isinstance(name, str) or not isinstance(file, str):
        return None
    # pkg/sub/mod.py is pkg.sub.mod: two folders up from the file's is pkg's.
    folder = Path(file).parent
    levels = name.count(".") - (0 if Path(file).name == "__init__.py" else 1)
    if levels < 0:
        return None  # a top-level module, not a package
    for _ in range(levels):
        folder = folder.parent
    return name.partition(".")[0], folder


def native_failure(exc: BaseException, protected: Collection[str]) -> str | None:
    """The package to stand in for ``exc``, or ``None`` when no stand-in may be made.

    ``protected``: top-level names never stood in (the code under check,
    spec_protocols)."""
    if not isinstance(exc, ImportError) or isinstance(exc, ModuleNotFoundError):
        return None
    found = _failing_package(exc)
    if found is None:
        return None
    package, folder = found
    if package in protected or package in _STOOD_IN:
        return None
    if folder is not None and not _ships_native_code(folder):
        return None
    return package


def _from_stand_in(value: object) -> bool:
    if isinstance(value, StandIn | _Module):
        return True
    if isinstance(value, type):
        mro: tuple[type, ...] = type.__dict__["__mro__"].__get__(value)
        return any("__stand_in__" in vars(k) or _stood_module(k) for k in (*mro, *type.__dict__["__mro__"].__get__(type(value))))
    return isinstance(value, types.FunctionType) and _stood_module(value)


def _stood_module(value: type | types.FunctionType) -> bool:
    module = value.__dict__.get("__module__") if isinstance(value, type) else value.__module__
    return isinstance(module, str) and module.partition(".")[0] in _STOOD_IN


def dependence(obj: object, members: Iterable[str]) -> str | None:
    """What of ``obj`` comes from a stand-in (``"its base Kernel"``, ``"its member
    forward_batch_generation"``), or ``None``: nothing checked does."""
    if not _STOOD_IN:
        return None
    if isinstance(obj, StandIn | _Module):
        return "the class itself"
    if not isinstance(obj, type):
        return None
    cls: type = obj
    for klass in type.__dict__["__mro__"].__get__(cls)[1:]:
        if _from_stand_in(klass):
            return f"its base {klass.__qualname__}"
    if _from_stand_in(type(cls)):
        return f"its metaclass {type(cls).__qualname__}"
    for name in members:
        value = _static(cls, name)
        parts: list[object] = [value]
        if isinstance(value, property):
            parts = [value.fget, value.fset]
        elif isinstance(value, staticmethod | classmethod):
            parts = [cast(object, value.__func__)]  # pyright: ignore[reportUnknownMemberType]  # the wrapped function, whatever its type
        if any(_from_stand_in(part) for part in parts):
            return f"its member {name}"
    return None


_ABSENT = object()


def _static(cls: type, name: str) -> object:
    for klass in type.__dict__["__mro__"].__get__(cls):
        namespace = type.__dict__["__dict__"].__get__(klass)
        if name in namespace:
            return namespace[name]
    return _ABSENT
