"""Where a command writes: the report on stdout (or ``--output``), remarks on stderr."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["say", "write"]


def write(text: str, output: Path | None) -> None:
    """``text`` on stdout, or in ``--output``'s file, ending with a newline."""
    text = text if text.endswith("\n") else text + "\n"
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def say(line: str) -> None:
    """One remark for the person running the command, outside the report."""
    sys.stderr.write(f"spec-protocols: {line}\n")
