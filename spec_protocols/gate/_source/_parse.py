"""A Python file read and parsed once: its decoded text, its tree, the digest of its bytes.

The bytes are parsed as the interpreter would read them (a PEP 263 coding
line is honoured, a byte-order mark skipped), and the text is decoded the
same way, so that a node's line numbers index the text's lines. The digest
is of the bytes parsed: the verdict cache keys what a stage read on it.

Within :func:`parses_shared` (one release's run), a file is parsed once for
every reader of it: the contract's reading of the release and discovery's
both read sglang's largest modules (``managers/scheduler.py``,
``server_args.py``), and the parse is most of what either costs cold. A
file changed since (its size or modification time) is parsed again. Readers
never change a tree they are given (those that edit one edit a deep copy).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ParseCache", "ParsedFile", "parse_file", "parses_shared"]


@dataclass(frozen=True, slots=True, eq=False)
class ParsedFile:
    """One parsed file."""

    path: Path
    tree: ast.Module
    #: The decoded source text (universal newlines).
    text: str
    #: The sha256 of the bytes parsed.
    sha256: str


#: The files parsed in the current :func:`parses_shared` block, each with the
#: (size, modification time) it was parsed at; None outside one.
_SHARED: ContextVar[dict[Path, tuple[tuple[int, int], ParsedFile]] | None] = ContextVar("_SHARED", default=None)


@contextmanager
def parses_shared() -> Generator[None]:
    """Within the block, :func:`parse_file` parses each file once (see the module docstring)."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def parse_file(path: Path) -> ParsedFile:
    """Parse ``path``; raises OSError, SyntaxError or ValueError (a
    UnicodeDecodeError among them)."""
    shared = _SHARED.get()
    if shared is None:
        return _parse(path)
    stat = path.stat()
    stamp = (stat.st_size, stat.st_mtime_ns)
    known = shared.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    parsed = _parse(path)
    shared[path] = (stamp, parsed)
    return parsed


def _parse(path: Path) -> ParsedFile:
    data = path.read_bytes()
    tree = ast.parse(data, filename=str(path))
    return ParsedFile(path, tree, importlib.util.decode_source(data), hashlib.sha256(data).hexdigest())


class ParseCache:
    """Files read and parsed on demand, each once; a file that cannot be read,
    decoded or parsed is None (it holds nothing a lenient reader could use)."""

    def __init__(self) -> None:
        self._texts: dict[Path, str | None] = {}
        self._parsed: dict[Path, ParsedFile | None] = {}

    def text(self, path: Path) -> str | None:
        """The decoded text of ``path``, read once and not parsed: a cheap
        filter before a parse, since most files a reader looks at hold
        nothing for it."""
        parsed = self._parsed.get(path)
        if parsed is not None:
            return parsed.text
        if path not in self._texts:
            try:
                self._texts[path] = importlib.util.decode_source(path.read_bytes())
            except (OSError, SyntaxError, ValueError):
                self._texts[path] = None
        return self._texts[path]

    def parse(self, path: Path) -> ParsedFile | None:
        """``path`` parsed, or None."""
        if path not in self._parsed:
            try:
                self._parsed[path] = parse_file(path)
            except (OSError, SyntaxError, ValueError):
                self._parsed[path] = None
            self._texts.pop(path, None)
        return self._parsed[path]
