"""The gate's output formats: one module per ``--format``, all rendering a
:class:`~spec_protocols.gate._model.GateReport` to a string.

``render(report, fmt)`` is what the CLI calls; :data:`FORMATS` maps each
format name to its renderer. ``messages`` words the notes a run adds
(``_messages``; a checker's findings are worded in ``gate/_findings``). Every renderer takes the report and the keyword
``include_timings`` (timings are the only part of a report that varies
between two runs of the same code), and is deterministic otherwise.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from spec_protocols.gate._model import GateError, GateReport

if TYPE_CHECKING:
    from spec_protocols.gate._reports import _messages as messages
    from spec_protocols.gate._reports._github import render_github
    from spec_protocols.gate._reports._json import render_json
    from spec_protocols.gate._reports._junit import render_junit
    from spec_protocols.gate._reports._markdown import render_markdown
    from spec_protocols.gate._reports._text import render_text

__all__ = [
    "FORMATS",
    "Renderer",
    "messages",
    "render",
    "render_github",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_text",
]


class Renderer(Protocol):
    """A report format: ``renderer(report, include_timings=...) -> str``."""

    def __call__(self, report: GateReport, /, *, include_timings: bool = True) -> str: ...


class _OnFirstUse:
    """A format's renderer, its module imported when it first renders: a run
    pays only for its own ``--format`` (JUnit's ElementTree is no JSON run's cost)."""

    def __init__(self, module: str, name: str) -> None:
        self._module = module
        self._name = name

    def __call__(self, report: GateReport, /, *, include_timings: bool = True) -> str:
        renderer: Renderer = getattr(importlib.import_module(f"{__name__}.{self._module}"), self._name)
        return renderer(report, include_timings=include_timings)


#: ``--format`` name -> renderer. The CLI takes its choices from these keys,
#: in this order (the default, ``text``, first).
FORMATS: Mapping[str, Renderer] = {
    "text": _OnFirstUse("_text", "render_text"),
    "json": _OnFirstUse("_json", "render_json"),
    "junit": _OnFirstUse("_junit", "render_junit"),
    "github": _OnFirstUse("_github", "render_github"),
    "markdown": _OnFirstUse("_markdown", "render_markdown"),
}

# The renderers by name, and ``messages``, imported on first use (PEP 562).
_HOMES = {f"render_{fmt}": f"_{fmt}" for fmt in FORMATS} | {"messages": "_messages"}


if not TYPE_CHECKING:  # so that checkers still report a name that does not exist

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        module = importlib.import_module(f"{__name__}.{home}")
        value = module if name == "messages" else getattr(module, name)
        globals()[name] = value
        return value


def render(report: GateReport, fmt: str, *, include_timings: bool = True) -> str:
    """Render *report* in format *fmt* (a key of :data:`FORMATS`); an unknown
    *fmt* raises :class:`GateError`."""
    try:
        renderer = FORMATS[fmt]
    except KeyError:
        raise GateError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})") from None
    return renderer(report, include_timings=include_timings)
