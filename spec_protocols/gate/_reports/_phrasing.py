"""How every human-readable report phrases things: short class names,
elision to a width, the summary line.

Shared by the text, GitHub, JUnit and markdown formats.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping

from spec_protocols.gate._model import GateReport
from spec_protocols.gate._reports._order import summary_counts

__all__ = ["SEE_ALL", "elide", "paragraph", "short_names", "summary_line", "total_seconds"]

#: How to see every problem of a check, after the count of those a view leaves out.
SEE_ALL = "--format json lists every one"

_ELLIPSIS = "..."  # ASCII: the report must survive any terminal and CI log.


def paragraph(text: str, width: int, *, indent: str, continued: str) -> list[str]:
    """``text`` as one paragraph on lines of at most ``width`` columns, the
    first indented by ``indent``, the rest by ``continued``, broken at spaces
    only (a word longer than a line, a long path, overflows rather than
    break). A message that spans lines (a checker's note) is one paragraph."""
    return textwrap.wrap(
        " ".join(text.split()),
        width,
        initial_indent=indent,
        subsequent_indent=continued,
        break_long_words=False,
        break_on_hyphens=False,
    )


def elide(text: str, width: int, *, keep: str = "middle") -> str:
    """Shorten *text* to at most *width* characters with ``...``.

    ``keep="middle"`` drops the middle (class names: both ends identify),
    ``"end"`` drops the start (dotted paths: the class name is at the end),
    ``"start"`` drops the end (messages: they are read from the left).
    """
    if len(text) <= width:
        return text
    if width <= len(_ELLIPSIS):
        return text[:width]
    room = width - len(_ELLIPSIS)
    if keep == "end":
        return _ELLIPSIS + text[-room:]
    if keep == "start":
        return text[:room] + _ELLIPSIS
    # The tail gets the larger half: "...DraftWorker" suffixes tell classes apart.
    head = room // 2
    return text[:head] + _ELLIPSIS + text[len(text) - (room - head) :]


def short_names(targets: Iterable[str]) -> dict[str, str]:
    """Map each dotted class path to the shortest dotted suffix that is unique
    among *targets*: usually the class name, and ``module.Class`` only when two
    modules define a class of the same name."""
    unique = sorted(set(targets))
    parts = {t: t.split(".") for t in unique}
    depth = {t: 1 for t in unique}
    while True:
        shown: dict[str, list[str]] = {}
        for t in unique:
            shown.setdefault(".".join(parts[t][-depth[t] :]), []).append(t)
        clashes = [ts for ts in shown.values() if len(ts) > 1]
        if not clashes:
            return {t: ".".join(parts[t][-depth[t] :]) for t in unique}
        grew = False
        for ts in clashes:
            for t in ts:
                if depth[t] < len(parts[t]):
                    depth[t] += 1
                    grew = True
        if not grew:  # identical paths cannot clash after set(); defensive stop
            return {t: ".".join(parts[t][-depth[t] :]) for t in unique}


def total_seconds(timings: Mapping[str, float]) -> float | None:
    """The run's wall time: ``timings["total"]`` when the gate recorded it,
    else the longest single timing (checkers run in parallel, so a sum would
    overstate it); ``None`` when there are no timings."""
    if "total" in timings:
        return timings["total"]
    return max(timings.values()) if timings else None


def summary_line(report: GateReport, *, include_timings: bool = True) -> str:
    """``"12 checked: 11 pass, 1 fail, 0 unverified"``, plus the baselined
    problem count when there are any and ``" in 3.2s"`` with timings.

    Shared by the text, GitHub and markdown formats.
    """
    counts = summary_counts(report)
    line = (
        f"{counts['total']} checked: {counts['pass']} pass, {counts['fail']} fail, "
        f"{counts['unverified']} unverified"
    )
    if counts["baselined"]:
        line += f" ({counts['baselined']} baselined problem{'s' if counts['baselined'] != 1 else ''})"
    seconds = total_seconds(report.timings) if include_timings else None
    if seconds is not None:
        line += f" in {seconds:.1f}s"
    return line
