"""The gate's output formats: one registry, one module per ``--format``.

``render(report, fmt)`` is what every entry point calls, for a run over one
release (a :class:`~spec_protocols.gate._model.GateReport`, or a one-row
:class:`~spec_protocols.gate._reports._release_matrix.ReleasesReport`) or
several (the class x release table); :data:`FORMATS` maps each format name to
its renderer. ``messages`` words the notes a run adds (``_messages``; a
checker's findings are worded in ``gate/_findings``). Every renderer takes
the keyword ``include_timings`` (timings are the only part of a report that
varies between two runs of the same code), and is deterministic otherwise.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from spec_protocols.gate._model import GateError, GateReport

if TYPE_CHECKING:
    from spec_protocols.gate._reports import _messages as messages
    from spec_protocols.gate._reports._release_matrix import ReleasesReport
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

    def __call__(self, report: GateReport | ReleasesReport, /, *, include_timings: bool = True) -> str: ...


class _Format:
    """A format's renderers, for one release and for several, their modules
    imported when one first renders: a run pays only for its own ``--format``
    (JUnit's ElementTree is no JSON run's cost)."""

    def __init__(self, module: str, name: str, releases_module: str, releases_name: str) -> None:
        self._one = (module, name)
        self._several = (releases_module, releases_name)

    def __call__(self, report: GateReport | ReleasesReport, /, *, include_timings: bool = True) -> str:
        single = report if isinstance(report, GateReport) else report.runs[0].report if len(report.runs) == 1 else None
        module, name = self._one if single is not None else self._several
        renderer: Callable[..., str] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        return renderer(single if single is not None else report, include_timings=include_timings)


#: ``--format`` name -> renderer. The CLI takes its choices from these keys,
#: in this order (the default, ``text``, first).
FORMATS: Mapping[str, Renderer] = {
    "text": _Format("_text", "render_text", "_release_table", "render_releases_text"),
    "json": _Format("_json", "render_json", "_release_formats", "render_releases_json"),
    "junit": _Format("_junit", "render_junit", "_release_formats", "render_releases_junit"),
    "github": _Format("_github", "render_github", "_release_formats", "render_releases_github"),
    "markdown": _Format("_markdown", "render_markdown", "_release_table", "render_releases_markdown"),
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


def render(report: GateReport | ReleasesReport, fmt: str, *, include_timings: bool = True) -> str:
    """Render *report* in format *fmt* (a key of :data:`FORMATS`); an unknown
    *fmt* raises :class:`GateError`."""
    try:
        renderer = FORMATS[fmt]
    except KeyError:
        raise GateError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})") from None
    return renderer(report, include_timings=include_timings)
