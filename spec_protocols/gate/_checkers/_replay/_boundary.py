"""Whose fault an exception is: the boundary between sglang's code and the plugin's.

The replay fails a class only for what breaks where sglang and the plugin
meet, as sglang would meet it: a call one side makes of the other that does
not bind (``TypeError: X.__init__() got an unexpected keyword argument``), or
a member one side reads on the other's object that the object lacks
(``AttributeError``, its ``obj``). An exception raised anywhere else stops the
replay there, with where it happened: the plugin's own code that fails on its
own (it opens a file, it needs CUDA), or sglang's code meeting a stand-in the
replay gave it (a model that was never loaded). That is a blind spot, never a
failure, and never a pass for what it did not reach.

A read of an attribute a stand-in lacks is the plugin's fault only when the
real class lacks it too: the stand-ins are autospecs of sglang's own classes,
given the instance attributes their source assigns, so a name the real class
has (as a member or as a ``self.name =`` in its source) that the stand-in
still lacks is the stand-in's gap.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

__all__ = ["Blame", "Sides", "blame"]

#: What a call that does not bind says (CPython's words): the callee's
#: qualified name, then why.
_UNBOUND = re.compile(
    r"^(?P<callee>[\w.<>]+)\(\) (?:got an unexpected keyword argument|missing \d+ required|takes (?:from )?\d+ |got multiple values"
    r"|got some positional-only arguments passed as keyword"
    # inspect.Signature.bind's words, which the stand-ins' callables raise with the callee named
    r"|missing a required (?:keyword-only )?argument|too many (?:positional|keyword) arguments|multiple values for argument)"
)


@dataclass(frozen=True, slots=True)
class Blame:
    """What an exception is: ``boundary`` (sglang and the plugin do not meet: a
    failure) or ``inside`` (it happened inside one side's own code: the replay
    stops), where in the plugin it happened, and in words."""

    verdict: Literal["boundary", "inside"]
    said: str
    where: str = ""


@dataclass(frozen=True, slots=True)
class Sides:
    """Which code is whose. sglang's side is sglang's package, the replay
    itself (it stands for the scheduler) and the standard library (its
    ``unittest.mock`` is the stand-ins' code); everything else is the
    plugin's: its files, the helpers it imports, the library base it builds on."""

    #: The folders of sglang's side.
    sglang_folders: tuple[str, ...]
    #: Whether an object is one of the replay's stand-ins (a mock of an sglang class).
    is_standin: Callable[[object], bool]
    #: Whether the sglang class a stand-in stands for has ``name`` (a member, or assigned in its source).
    real_has: Callable[[object, str], bool]
    #: The plugin's own top-level packages (or modules): where a callee a TypeError names is looked for.
    packages: frozenset[str] = frozenset()
    #: The files of the replay's stand-ins: transparent when asking who made a call.
    standin_files: frozenset[str] = frozenset()

    def plugin_file(self, filename: str) -> bool:
        resolved = _resolved(filename)
        return not filename.startswith("<") and not any(resolved.startswith(folder) for folder in self.sglang_folders)

    def standin_file(self, filename: str) -> bool:
        """The replay's stand-ins' own code (a stand-in ``TpModelWorker.__init__`` binding its arguments)."""
        return _resolved(filename) in self.standin_files

    def library_file(self, filename: str) -> bool:
        """The standard library's (where a stand-in's own code raises)."""
        return _resolved(filename).startswith(self.sglang_folders[-1]) if self.sglang_folders else False

    def plugin_object(self, obj: object) -> bool:
        """Whether ``obj`` is the plugin's: an instance of a class its files define (or that class)."""
        cls = obj if isinstance(obj, type) else type(obj)
        module = sys.modules.get(getattr(cls, "__module__", "") or "")
        file = getattr(module, "__file__", None)
        return isinstance(file, str) and self.plugin_file(file)


def _resolved(filename: str) -> str:
    try:
        return str(Path(filename).resolve())
    except OSError:
        return filename


def _frames(tb: TracebackType | None) -> list[traceback.FrameSummary]:
    return list(traceback.extract_tb(tb))


def _where(frames: Sequence[traceback.FrameSummary], sides: Sides) -> str:
    """The innermost frame in the plugin's code, as ``file:line``."""
    for frame in reversed(frames):
        if sides.plugin_file(frame.filename):
            return f"{frame.filename}:{frame.lineno}"
    return ""


def _words(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def blame(error: BaseException, sides: Sides, *, entered: bool) -> Blame:
    """Whose ``error`` is. ``entered``: whether the replay's own call reached
    the plugin's code (a frame past the replay's call); a call of the
    plugin's that did not bind at all is the boundary whatever the rest says."""
    frames = _frames(error.__traceback__)
    where = _where(frames, sides)
    said = _words(error)
    if isinstance(error, TypeError) and _crosses_call(error, frames, sides, entered):
        return Blame("boundary", said, where)
    if isinstance(error, AttributeError) and (_crosses_read(error, frames, sides) or _refused_store(error, frames, sides)):
        return Blame("boundary", said, where)
    if getattr(error, "read_before_set", False):
        # spec_protocols' SpecWorkerBase says so when sglang reads a member the
        # plugin's constructor never set (WorkerNotInitializedError).
        return Blame("boundary", said, where)
    return Blame("inside", said, where)


#: A store a class refuses: a property without a setter (CPython's words), naming the class.
_NO_SETTER = re.compile(r"property '(?P<name>\w+)' of '(?P<cls>[\w.]+)' object has no setter|can't set attribute")


def _refused_store(error: AttributeError, frames: Sequence[traceback.FrameSummary], sides: Sides) -> bool:
    """sglang's store of a member on the plugin's object, which the object refuses:
    a property with no setter, a ``__setattr__`` or descriptor of the plugin's that raises."""
    if not frames:
        return False
    if not sides.plugin_file(frames[-1].filename):
        # Raised where sglang stores (a read-only property of the plugin's class).
        match = _NO_SETTER.search(str(error))
        return match is not None and bool(match.group("cls")) and match.group("cls").rpartition(".")[2] in _plugin_class_names(sides)
    # The innermost run of the plugin's frames, and whether sglang's code entered it with a store.
    first = len(frames) - 1
    while first > 0 and sides.plugin_file(frames[first - 1].filename):
        first -= 1
    entered_from_sglang = first > 0
    return entered_from_sglang and frames[first].name in ("__setattr__", "__set__", "__delattr__")


def _plugin_class_names(sides: Sides) -> set[str]:
    """The names of the classes the plugin's packages define."""
    names: set[str] = set()
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in sides.packages:
            names.update(k for k, v in vars(module).items() if isinstance(v, type) and getattr(v, "__module__", "").partition(".")[0] in sides.packages)
    return names


def _crosses_call(error: TypeError, frames: Sequence[traceback.FrameSummary], sides: Sides, entered: bool) -> bool:
    """A call that does not bind, with the plugin's code on either side of it.

    Whether a call binds depends on the callee's parameters and the names and
    number of the arguments, never on the stand-ins' values: a call the
    plugin's code makes that does not bind (into sglang's ``__init__``, into
    its own base through a ``**kwargs`` mixin) raises the same on a GPU, and
    so does sglang's call of the plugin's callable. Only a call sglang makes of
    its own callables is sglang's business (a stand-in that does not fit)."""
    match = _UNBOUND.match(str(error))
    if match is None:
        return False
    if not entered:
        return True  # the replay's own call, standing for sglang's, of the plugin's callable
    return _reader_is_plugin(frames, sides) or _plugin_qualname(match.group("callee"), frames, sides)


def _reader_is_plugin(frames: Sequence[traceback.FrameSummary], sides: Sides) -> bool:
    """Whether the innermost frame outside the standard library and the
    replay's stand-ins (whose own code raises for the sglang callable they
    stand for) is the plugin's: who made the call or the read."""
    for frame in reversed(frames):
        if not sides.library_file(frame.filename) and not sides.standin_file(frame.filename):
            return sides.plugin_file(frame.filename)
    return False


def _plugin_qualname(qualname: str, frames: Sequence[traceback.FrameSummary], sides: Sides) -> bool:
    """Whether the callee a TypeError names is the plugin's: a class or function
    of that name in one of the plugin's modules (else sglang's, or the library's)."""
    head = qualname.split(".", 1)[0]
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in sides.packages:
            continue
        # A name the module defines, not one it imports (sglang's BaseSpecWorker, say);
        # read from its namespace, never through a module __getattr__.
        found = vars(module).get(head)
        home = getattr(found, "__module__", None)
        if found is not None and isinstance(home, str) and home.partition(".")[0] in sides.packages:
            return True
    return False


def _crosses_read(error: AttributeError, frames: Sequence[traceback.FrameSummary], sides: Sides) -> bool:
    """A read by one side of a member the other side's object lacks."""
    obj = getattr(error, "obj", None)
    name = getattr(error, "name", None)
    if obj is None or not isinstance(name, str):
        return False
    reader_is_plugin = _reader_is_plugin(frames, sides)
    if sides.is_standin(obj):
        # The plugin read a member of sglang's object: its fault if the real class lacks it too.
        return reader_is_plugin and not sides.real_has(obj, name)
    if sides.plugin_object(obj):
        return not reader_is_plugin  # sglang read a member of the plugin's object
    return False
