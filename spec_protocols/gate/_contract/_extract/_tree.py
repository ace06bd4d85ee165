"""A release's modules: located and parsed through the gate's source layer, each once.

A module is named by its dotted name and, for a :class:`Site`, by its path
relative to ``sglang/srt``. The readers find what they read by name, not by
line: ``class SpeculativeAlgorithm`` in ``speculative/spec_info.py`` (else
anywhere in ``speculative/``), a module-level ``def build_draft_tp_worker``.
A regular expression over a file's text is the cheap filter before a parse:
most files hold nothing a reader wants.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from spec_protocols.gate._contract._extract._algorithms import Algorithms
from spec_protocols.gate._contract._extract._syntax import FunctionNode, decorated, functions
from spec_protocols.gate._source import ParseCache, find_module_file, package_of, statements

__all__ = ["Module", "ReleaseTree", "find_class", "find_function"]


@dataclass(frozen=True, slots=True, eq=False)
class Module:
    """One parsed module of the release."""

    name: str
    path: Path
    #: Relative to ``sglang/srt`` (what a Site names).
    rel: str
    tree: ast.Module
    lines: tuple[str, ...] = ()
    #: The statements its import runs (at module level, also under ``if``,
    #: ``try``, ``with``, ``for``, ``match``), as :func:`~spec_protocols.gate._source.statements` walks them.
    run: tuple[ast.stmt, ...] = ()

    @property
    def package(self) -> str:
        """Where a relative import in this module starts."""
        return package_of(self.name, self.path.name == "__init__.py")

    def text_of(self, node: ast.stmt) -> str:
        end = getattr(node, "end_lineno", None) or node.lineno
        return "\n".join(self.lines[node.lineno - 1 : end])


class ReleaseTree:
    """The release's modules, parsed on demand (each once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.srt = root / "sglang" / "srt"
        self._files = ParseCache()
        self._by_path: dict[Path, Module | None] = {}
        self._packages: dict[str, list[str]] = {}
        self._algorithms: Algorithms | None = None

    def text(self, path: Path) -> str | None:
        """The text of a file, unparsed (None when it cannot be read)."""
        return self._files.text(path)

    def module_at(self, path: Path) -> Module | None:
        if path not in self._by_path:
            parsed = self._files.parse(path)
            module: Module | None = None
            if parsed is not None:  # an unreadable module holds no use we could locate
                relative = path.relative_to(self.root).with_suffix("")
                parts = list(relative.parts)
                if parts[-1] == "__init__":
                    parts.pop()
                try:
                    rel = path.relative_to(self.srt).as_posix()
                except ValueError:
                    rel = path.relative_to(self.root).as_posix()
                run = tuple(stmt for stmt, _ in statements(parsed.tree.body))
                module = Module(".".join(parts), path, rel, parsed.tree, tuple(parsed.text.splitlines()), run)
            self._by_path[path] = module
        return self._by_path[path]

    def module(self, dotted: str) -> Module | None:
        """Module ``dotted`` of the release (sglang's own modules only)."""
        if not dotted.startswith("sglang"):
            return None
        found = find_module_file(dotted, [str(self.root)], self._packages)
        return self.module_at(found) if found is not None and found.is_file() else None

    def files_under(self, folder: str) -> list[Path]:
        directory = self.srt / folder
        return sorted(directory.rglob("*.py")) if directory.is_dir() else []

    def modules_among(self, paths: Iterable[Path], pattern: re.Pattern[str], containing: Collection[str] = ()) -> Iterator[Module]:
        """The parsed modules of ``paths`` whose text matches ``pattern``, in
        their order. The regex is a cheap filter: only the files that can
        hold what is sought are parsed. ``containing``: words one of which
        every match of ``pattern`` holds; a file holding none of them is not
        searched (a substring test is cheaper than a search of a long alternation)."""
        for path in paths:
            text = self.text(path)
            if text is None or containing and not any(word in text for word in containing) or not pattern.search(text):
                continue
            module = self.module_at(path)
            if module is not None:
                yield module

    @property
    def algorithms(self) -> Algorithms:
        """The predicates of the release's ``SpeculativeAlgorithm``."""
        if self._algorithms is None:
            found = find_class(self, "spec_info.py", "SpeculativeAlgorithm")
            self._algorithms = Algorithms(found[1] if found else None, found[0].run if found else None)
        return self._algorithms


def modules_matching(tree: ReleaseTree, preferred: str, pattern: re.Pattern[str]) -> Iterator[Module]:
    """The parsed modules of ``speculative/`` whose text matches ``pattern``,
    ``speculative/<preferred>`` first."""
    candidates = [tree.srt / "speculative" / preferred, *tree.files_under("speculative")]
    return tree.modules_among((path for path in dict.fromkeys(candidates) if path.is_file()), pattern)


def find_class(tree: ReleaseTree, preferred: str, name: str) -> tuple[Module, ast.ClassDef] | None:
    """``class name`` in ``speculative/<preferred>``, else anywhere in ``speculative/``."""
    for module in modules_matching(tree, preferred, re.compile(rf"^class {re.escape(name)}\b", re.MULTILINE)):
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return module, node
    return None


def find_function(tree: ReleaseTree, preferred: str, name: str) -> tuple[Module, FunctionNode] | None:
    """Module-level ``def name`` in ``speculative/<preferred>``, else anywhere in ``speculative/``."""
    pattern = re.compile(rf"^(async )?def {re.escape(name)}\b", re.MULTILINE)
    for module in modules_matching(tree, preferred, pattern):
        # With @overload signatures, the implementation is what runs: its
        # body passes the keywords and its parameters have the defaults.
        # (A module of overloads only, as a stub, keeps its first.)
        found = [node for node in functions(module.tree.body) if node.name == name]
        implementations = [node for node in found if not decorated(node, "overload")]
        if implementations:
            return module, implementations[-1]
        if found:
            return module, found[0]
    return None
