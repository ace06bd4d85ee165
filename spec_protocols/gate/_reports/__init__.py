"""The gate's output formats: one module per ``--format``, all rendering a
:class:`~spec_protocols.gate._model.GateReport` to a string.

``render(report, fmt)`` is what the CLI calls; :data:`FORMATS` maps each
format name to its renderer. ``messages`` words the notes a run adds
(``_messages``; a checker's findings are worded in ``gate/_findings``). Every renderer takes the report and the keyword
``include_timings`` (timings are the only part of a report that varies
between two runs of the same code), and is deterministic otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from spec_protocols.gate._model import GateError, GateReport
from spec_protocols.gate._reports._github import render_github
from spec_protocols.gate._reports._json import render_json
from spec_protocols.gate._reports._junit import render_junit
from spec_protocols.gate._reports._markdown import render_markdown
from spec_protocols.gate._reports import _messages as messages
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


#: ``--format`` name -> renderer. The CLI takes its choices from these keys,
#: in this order (the default, ``text``, first).
FORMATS: Mapping[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "junit": render_junit,
    "github": render_github,
    "markdown": render_markdown,
}


def render(report: GateReport, fmt: str, *, include_timings: bool = True) -> str:
    """Render *report* in format *fmt* (a key of :data:`FORMATS`); an unknown
    *fmt* raises :class:`GateError`."""
    try:
        renderer = FORMATS[fmt]
    except KeyError:
        raise GateError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})") from None
    return renderer(report, include_timings=include_timings)
