"""Injection sites, checked in place: a shadow copy of each module that holds one.

An expression injected as ``draft_worker_cls`` can have any shape: a
``functools.partial``, a factory function, a lambda, ``self.attr``, a class
defined inside a function, a conditional expression. Recognizing shapes in
the syntax would never be complete. mypy and pyright already know what every
such expression is, in its own scope; they only need to be asked.

So the gate gives them a *shadow* of each module that holds a site: the
module's own source, with each site's expression ``EXPR`` replaced by the
call ``build_draft_tp_worker`` makes of it, wrapped in two helpers (all on
one line; see :func:`spec_protocols.gate._harness._lines.site_call`)::

    draft_worker_cls=_spsites.spec_protocols_site_3_canary(
        _spsites.spec_protocols_site_3((EXPR)(server_args=_spsites.server_args, ...)))

* any error inside that span is a failure of the site: the call would not fit
  ``EXPR`` (a keyword it cannot take, an abstract class), or what it builds is
  not a ``DraftWorker`` (the bound of ``spec_protocols_site_3``);
* ``spec_protocols_site_3_canary(built: _Canary)`` *must* error, since nothing
  real is a ``_Canary``. When it does not, what ``EXPR`` builds is ``Any`` to
  the checker, and the site is ``unverified``: never a silent pass.

The canary returns ``Any``, so the original call is not checked against its
callee's own signature (that is not our verdict). Everything else about the
module is unchanged: the checkers resolve the expression exactly where the
author wrote it. The shadow is a tree of links to the original package (so the
package still resolves whole) in which only the rewritten files are real; the
checkers find it first on their search path. Comments that silence a checker
(``# type: ignore``, ``# pyright: ...``, ``# mypy: ...``) are blanked in the
shadow: they would silence the gate's own code. Nothing is ever executed.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import io
import os
import re
import shutil
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spec_protocols.gate._harness._lines import SITE_FUNCTION, site_call, site_helper_module
from spec_protocols.gate._model import InjectionSite

__all__ = ["SiteShadow", "Span", "build_shadow", "is_canary"]

_CANARY_NAME = re.compile(rf'"{SITE_FUNCTION}_\d+_canary"')
_SILENCERS = re.compile(r"#\s*(type:\s*ignore|pyright:|mypy:)")
_HELPER_ALIAS = "_spsites"


@dataclass(frozen=True, slots=True)
class Span:
    """Where one site's rewritten text lies in its shadow file (1-based lines,
    0-based columns, end exclusive)."""

    number: int
    line: int
    col: int
    end_line: int
    end_col: int

    def holds(self, line: int, col: int) -> bool:
        return (self.line, self.col) <= (line, col) < (self.end_line, self.end_col)


@dataclass(frozen=True, slots=True)
class SiteShadow:
    """The shadow tree for one run."""

    #: Put first on the checkers' search path.
    root: Path
    #: The generated helper module's name (in ``root``).
    helper: str
    #: module name -> rewritten file, for the modules the checkers must check.
    files: Mapping[str, Path]
    #: site number -> site
    sites: Mapping[int, InjectionSite]
    #: site target -> why it cannot be checked (its module could not be rewritten)
    unverifiable: Mapping[str, str]
    #: rewritten file -> where each of its sites lies
    spans: Mapping[Path, tuple[Span, ...]] = field(default_factory=dict[Path, tuple[Span, ...]])

    def site_at(self, file: Path, line: int, col: int) -> int | None:
        """The number of the site whose rewritten text holds this position."""
        for span in self.spans.get(file.resolve(), ()):
            if span.holds(line, col):
                return span.number
        return None


def is_canary(message: str) -> bool:
    """Whether a diagnostic is a site's canary firing (the good case)."""
    return _CANARY_NAME.search(message) is not None


def _char_offsets(text: str) -> list[int]:
    """Offset in ``text`` of the start of each line (1-based lines: index 0 unused)."""
    offsets = [0, 0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def _position(text: str, starts: list[int], line: int, byte_col: int) -> int:
    """ast positions count UTF-8 bytes within a line; return a ``str`` index."""
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    prefix = text[start:end].encode("utf-8")[:byte_col]
    return start + len(prefix.decode("utf-8", errors="ignore"))


def _blank_silencers(text: str) -> str:
    """The same text with checker-silencing comments replaced by blanks of equal length."""
    chars = list(text)
    starts = _char_offsets(text)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    for token in tokens:
        if token.type == tokenize.COMMENT and _SILENCERS.search(token.string):
            begin = starts[token.start[0]] + token.start[1]
            for i in range(begin + 1, begin + len(token.string)):
                chars[i] = " "
    return "".join(chars)


def _insert_line(tree: ast.Module) -> int:
    """The line after which a new import may go: after the docstring and every
    ``from __future__`` import (which must stay first)."""
    line = 0
    for index, stmt in enumerate(tree.body):
        is_docstring = index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        is_future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
        if not (is_docstring or is_future):
            break
        line = stmt.end_lineno or stmt.lineno
    return line


def _rewrite(
    text: str, sites: Sequence[tuple[int, InjectionSite]], helper: str, keywords: Sequence[str]
) -> tuple[str, tuple[Span, ...]]:
    """The shadow text of a module, and where each site lies in it."""
    tree = ast.parse(text)
    text = _blank_silencers(text)
    starts = _char_offsets(text)
    edits: list[tuple[int, int, int, str]] = []
    for n, site in sites:
        begin = _position(text, starts, site.line, site.col)
        end = _position(text, starts, site.end_line, site.end_col)
        # Joined into one line, so that the span is found by its line alone.
        expression = " ".join(text[begin:end].splitlines())
        edits.append((begin, end, n, site_call(n, expression, _HELPER_ALIAS, keywords)))
    for begin, end, _, wrapped in sorted(edits, reverse=True):
        text = text[:begin] + wrapped + text[end:]
    lines = text.splitlines(keepends=True)
    at = _insert_line(tree)
    if at and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    header = [f"import {helper} as {_HELPER_ALIAS}  # generated by spec-protocols\n"]
    rewritten = "".join(lines[:at] + header + lines[at:])
    ast.parse(rewritten)  # a rewrite the checkers could not parse is caught here
    spans: list[Span] = []
    for line_number, line in enumerate(rewritten.splitlines(), start=1):
        for _, _, n, wrapped in edits:
            col = line.find(wrapped)
            if col >= 0:
                spans.append(Span(n, line_number, col, line_number, col + len(wrapped)))
    return rewritten, tuple(sorted(spans, key=lambda s: s.number))


def _module_path(name: str, file: Path) -> tuple[Path, Path]:
    """The directory a module's top-level package lives in, and the module's
    file relative to it."""
    root = file.parent
    for _ in range(len(name.split(".")) - (0 if file.name == "__init__.py" else 1)):
        root = root.parent
    return root, file.relative_to(root)


def _link(source: Path, link: Path) -> None:
    if link.exists() or link.is_symlink():
        return
    try:
        link.symlink_to(source)
    except OSError:
        if source.is_dir():
            shutil.copytree(source, link)
        else:
            shutil.copy2(source, link)


def _mirror(shadow: Path, name: str, file: Path, text: str) -> Path:
    """Write ``text`` as module ``name`` under ``shadow``, mirroring its packages
    with links so that every other module of them still resolves."""
    root, relative = _module_path(name, file)
    folders = relative.parts[:-1]
    for depth in range(len(folders)):
        here = Path(*folders[: depth + 1])
        (shadow / here).mkdir(parents=True, exist_ok=True)
        on_path = folders[depth + 1] if depth + 1 < len(folders) else relative.parts[-1]
        for entry in sorted((root / here).iterdir()):
            if entry.name != on_path:
                _link(entry, shadow / here / entry.name)
    target = shadow / relative
    if target.is_symlink():
        target.unlink()
    target.write_text(text, encoding="utf-8")
    return target


def build_shadow(sites: Sequence[InjectionSite], cache: Path, keywords: Sequence[str]) -> SiteShadow | None:
    """The shadow tree for ``sites`` (None when there are none), under ``cache``;
    each site is called with ``keywords`` (those the release passes ``draft_worker_cls``).

    The tree is content-addressed: the same sources give the same directory,
    so mypy's cache stays valid between runs, and a finished tree is reused.
    """
    if not sites:
        return None
    numbered = {n: site for n, site in enumerate(sorted(sites, key=lambda s: s.target), start=1)}
    by_module: dict[str, list[tuple[int, InjectionSite]]] = {}
    for n, site in numbered.items():
        by_module.setdefault(site.module, []).append((n, site))
    files_of = {name: entries[0][1].file for name, entries in by_module.items()}
    sources = {name: importlib.util.decode_source(file.read_bytes()) for name, file in files_of.items()}
    digest = hashlib.sha256(site_helper_module(sorted(numbered), keywords).encode())
    for name in sorted(by_module):
        digest.update(f"{name}\0{files_of[name]}\0{sources[name]}\0".encode())
        for n, site in by_module[name]:
            digest.update(f"{n}:{site.line}:{site.col}:{site.end_line}:{site.end_col}\0".encode())
    stamp = digest.hexdigest()[:16]
    helper = f"spec_protocols_sites_{stamp}"
    root = cache / "shadow" / stamp

    rewritten: dict[str, tuple[str, tuple[Span, ...]]] = {}
    unverifiable: dict[str, str] = {}
    for name, entries in sorted(by_module.items()):
        try:
            rewritten[name] = _rewrite(sources[name], entries, helper, keywords)
        except (SyntaxError, ValueError) as exc:
            for _, site in entries:
                unverifiable[site.target] = f"its module could not be prepared for checking ({exc})"
    if not (root / ".complete").exists():
        building = root.with_name(f"{stamp}.tmp{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        (building / f"{helper}.py").write_text(site_helper_module(sorted(numbered), keywords), encoding="utf-8")
        for name, (text, _) in rewritten.items():
            _mirror(building, name, files_of[name], text)
        (building / ".complete").write_text("")
        try:
            building.rename(root)
        except OSError:  # another run built it first
            shutil.rmtree(building, ignore_errors=True)
    files = {name: root / _module_path(name, files_of[name])[1] for name in rewritten}
    spans = {files[name].resolve(): rewritten[name][1] for name in rewritten}
    return SiteShadow(root, helper, files, numbered, unverifiable, spans)
