"""What a checker said, read apart from the harness's own names.

The checkers' headlines compare harness variables
(``_SpecWorker__forward_batch_generation``,
``DraftWorkerFactory[InjectableDraftWorker]``), so they are never shown as
they are; what they say about the member itself is kept, stripped of the
harness's names. Used by the verdict core
(:mod:`~spec_protocols.gate._checkers._interpret`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spec_protocols.gate._checkers._dialect import Dialect
from spec_protocols.gate._harness import SITE_FUNCTION

__all__ = ["indented", "plain", "reasons", "summary"]


def summary(message: str) -> str:
    """A checker's message in one line: its innermost line.

    pyright nests the reason under a headline that names the harness's own
    types ("Type ... is not assignable to declared type "_SpecWorker__..."",
    then, indented, "Missing keyword parameter "extra""); the innermost line
    is the one that tells the reader what to fix. mypy's messages are one line.
    """
    # pyright ends a long explanation with a bare "..." line: skip it.
    lines = [line.strip() for line in message.strip().splitlines() if line.strip() not in ("", "...")]
    return lines[-1] if lines else message.strip()



#: The names the harness generates, and what to call them instead.
_HARNESS_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b_([A-Z]\w*?)_as_written__(\w+)\b"), r"\1.\2"),  # the same, as the protocol writes it
    (re.compile(r"\b_([A-Z]\w*?)__(\w+)\b"), r"\1.\2"),  # a member's callback protocol
    (re.compile(rf"\b{SITE_FUNCTION}_\d+(?:_canary)?\b"), "build_draft_tp_worker"),
    (re.compile(r"\b_m\d+\."), ""),  # a module alias
)

def plain(text: str) -> str:
    """``text`` without a name the harness made up."""
    for pattern, replacement in _HARNESS_NAMES:
        text = pattern.sub(replacement, text)
    return text


def indented(message: str) -> list[tuple[int, str]]:
    return [
        (len(line) - len(line.lstrip()), line.strip())
        for line in message.strip("\n").splitlines()
        if line.strip() not in ("", "...")
    ]


def reasons(lines: Sequence[tuple[int, str]], cls: str | None, dialect: Dialect) -> list[str]:
    """The checker's own reasons in ``lines`` (one diagnostic, indented as the
    checker nests them): the shallowest lines below its headlines and
    protocol wrappers, where pyright says what differs ("Missing keyword
    parameter "on_publish"", "Extra parameter "x""); deeper lines only
    restate them. Without any, what the checker read the member as."""
    rest = [(i, t) for i, t in lines if dialect.headline_read(t) is None and not dialect.protocol_wrapper.match(t)]
    if rest:
        top = min(i for i, _ in rest)
        return list(dict.fromkeys(plain(t) for i, t in rest if i == top))
    for _, text in lines:
        read = dialect.headline_read(text) or None
        # "read as MyWorker" (or "type[MyWorker]") only repeats the class.
        if read is not None and read not in (cls, f"type[{cls}]"):
            return [f'read as "{plain(read)}"']
    return []

