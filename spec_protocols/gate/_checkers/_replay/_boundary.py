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
    r"|got some positional-only arguments passed as keyword)"
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
    """Which code is whose: the plugin's files, and the replay's stand-in objects."""

    plugin_files: frozenset[str]
    #: Whether an object is one of the replay's stand-ins (a mock of an sglang class).
    is_standin: Callable[[object], bool]
    #: Whether the sglang class a stand-in stands for has ``name`` (a member, or assigned in its source).
    real_has: Callable[[object, str], bool]

    def plugin_file(self, filename: str) -> bool:
        return _resolved(filename) in self.plugin_files

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
    if isinstance(error, AttributeError) and _crosses_read(error, frames, sides):
        return Blame("boundary", said, where)
    return Blame("inside", said, where)


def _crosses_call(error: TypeError, frames: Sequence[traceback.FrameSummary], sides: Sides, entered: bool) -> bool:
    """A call that does not bind, made by one side of the other's callable."""
    match = _UNBOUND.match(str(error))
    if match is None:
        return False
    if not entered:
        return True  # the replay's own call, standing for sglang's, of the plugin's callable
    caller_is_plugin = bool(frames) and sides.plugin_file(frames[-1].filename)
    callee_is_plugin = _plugin_qualname(match.group("callee"), frames, sides)
    return caller_is_plugin != callee_is_plugin


def _plugin_qualname(qualname: str, frames: Sequence[traceback.FrameSummary], sides: Sides) -> bool:
    """Whether the callee a TypeError names is the plugin's: a class or function
    of that name in one of the plugin's modules (else sglang's, or the library's)."""
    head = qualname.split(".", 1)[0]
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not (isinstance(file, str) and sides.plugin_file(file)):
            continue
        # A name the module defines, not one it imports (sglang's BaseSpecWorker, say).
        found = getattr(module, head, None)
        home = sys.modules.get(getattr(found, "__module__", None) or "")
        home_file = getattr(home, "__file__", None)
        if found is not None and isinstance(home_file, str) and sides.plugin_file(home_file):
            return True
    return False


def _crosses_read(error: AttributeError, frames: Sequence[traceback.FrameSummary], sides: Sides) -> bool:
    """A read by one side of a member the other side's object lacks."""
    obj = getattr(error, "obj", None)
    name = getattr(error, "name", None)
    if obj is None or not isinstance(name, str):
        return False
    reader_is_plugin = bool(frames) and sides.plugin_file(frames[-1].filename)
    if sides.is_standin(obj):
        # The plugin read a member of sglang's object: its fault if the real class lacks it too.
        return reader_is_plugin and not sides.real_has(obj, name)
    if sides.plugin_object(obj):
        return not reader_is_plugin  # sglang read a member of the plugin's object
    return False
