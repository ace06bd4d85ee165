"""Reading modules with :mod:`ast`: what each module binds, and what a name means.

The gate decides what a class *is* (a spec worker, a draft worker) by
following its base classes through the source, never by importing it. To be
true on plugin code as people write it, the index models every way a module
binds a name at import time:

* ``class`` statements at module level, and classes nested in them, including
  those under ``if``/``else``, ``try``/``except``/``else``/``finally``,
  ``with``, ``for``, ``while`` and ``match`` (all of them create classes when
  the import runs that branch);
* ``import`` and ``from ... import`` (``TYPE_CHECKING`` imports included: the
  static checkers see them), relative imports, and ``from m import *``
  (honouring ``m.__all__`` when it is a literal list);
* module-level aliases: ``Base = BaseSpecWorker``.

A name is resolved to the module that *defines* it, following re-exports,
aliases and star imports, and every module passed through on the way is
recorded (the *trail*): the static checkers must read those modules from
source too, or a re-exported base becomes ``Any`` to mypy.

``if`` tests that both checkers evaluate statically are evaluated the same
way (``sys.version_info`` and ``sys.platform`` comparisons, with
``not``/``and``/``or``: :func:`~spec_protocols.gate._source.static_truth`), so
a class defined only on another Python version is not checked against this
one; it is reported as a note instead. The statements are those the import
runs at module level, as :func:`~spec_protocols.gate._source.statements`
walks them; files are parsed by :func:`~spec_protocols.gate._source.parse_file`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spec_protocols.gate._model import GateError
from spec_protocols.gate._source import (
    absolute_module,
    dotted_name,
    find_module_file,
    package_of,
    parse_file,
    statements,
)

__all__ = ["ClassInfo", "ModuleSource", "SourceIndex", "SourceReads", "Unreachable", "parse_module"]

# How deep to follow a chain of re-exports, aliases or base classes before
# giving up (a cycle or a pathological package); nothing real comes close.
_MAX_DEPTH = 40


@dataclass(frozen=True, slots=True)
class ClassInfo:
    """A class statement the import can execute."""

    qualname: str
    node: ast.ClassDef


@dataclass(frozen=True, slots=True)
class Unreachable:
    """A class statement in a branch that is statically false on this interpreter."""

    qualname: str
    line: int
    condition: str


@dataclass
class ModuleSource:
    """One parsed module and the names it binds at module level."""

    name: str
    file: Path
    is_package: bool
    tree: ast.Module
    #: the decoded source text (for the source segments of expressions)
    source: str
    #: local name -> fully qualified dotted name it was imported as
    imports: dict[str, str] = field(default_factory=dict[str, str])
    #: local name -> the dotted name it aliases (``Base = BaseSpecWorker``)
    aliases: dict[str, str] = field(default_factory=dict[str, str])
    #: modules star-imported, in statement order
    star_imports: list[str] = field(default_factory=list[str])
    #: ``__all__`` when it is a literal list or tuple of strings
    all_names: tuple[str, ...] | None = None
    #: qualname -> class (nested classes as Outer.Inner)
    classes: dict[str, ClassInfo] = field(default_factory=dict[str, ClassInfo])
    unreachable: list[Unreachable] = field(default_factory=list[Unreachable])
    #: The sha256 of the bytes parsed.
    sha256: str = ""

    @property
    def package(self) -> str:
        return package_of(self.name, self.is_package)

    def binds(self, name: str) -> bool:
        """Whether the module binds ``name`` itself (not through a star import)."""
        return name in self.classes or name in self.aliases or name in self.imports

    def exports(self, name: str) -> bool:
        """Whether ``from this_module import *`` would bind ``name``."""
        if self.all_names is not None:
            return name in self.all_names
        return not name.startswith("_")


# -- parsing -------------------------------------------------------------------


def parse_module(name: str, file: Path) -> ModuleSource:
    """Parse ``file`` as module ``name``; raises SyntaxError, OSError or ValueError."""
    parsed = parse_file(file)
    module = ModuleSource(name, file, file.name == "__init__.py", parsed.tree, parsed.text, sha256=parsed.sha256)
    _Binder(module).bind(parsed.tree.body)
    return module


class _Binder:
    """Binds the names of the statements the import runs at module level."""

    def __init__(self, module: ModuleSource) -> None:
        self.module = module

    def bind(self, body: Iterable[ast.stmt]) -> None:
        for stmt, false_branch in statements(body):
            if isinstance(stmt, ast.ClassDef):
                self._class(stmt, "", false_branch.condition if false_branch is not None else None)
            elif false_branch is not None:
                continue  # nothing here is bound; only its classes are worth a note
            elif isinstance(stmt, ast.Import):
                self._import(stmt)
            elif isinstance(stmt, ast.ImportFrom):
                self._import_from(stmt)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign):
                self._assignment(stmt)

    def _class(self, stmt: ast.ClassDef, prefix: str, unreachable: str | None) -> None:
        """A class statement; ``unreachable``: the (false) condition guarding it."""
        qual = f"{prefix}{stmt.name}"
        if unreachable is not None:
            self.module.unreachable.append(Unreachable(qual, stmt.lineno, unreachable))
            return
        self.module.classes[qual] = ClassInfo(qual, stmt)
        # Only class statements count inside a class body: its other names
        # are attributes, not module bindings.
        for inner, false_branch in statements(stmt.body):
            if isinstance(inner, ast.ClassDef) and false_branch is None:
                self._class(inner, qual + ".", None)

    def _import(self, stmt: ast.Import) -> None:
        for alias in stmt.names:
            if alias.asname:
                self.module.imports[alias.asname] = alias.name
            else:
                top = alias.name.partition(".")[0]
                self.module.imports[top] = top

    def _import_from(self, stmt: ast.ImportFrom) -> None:
        base = absolute_module(self.module.package, stmt.module, stmt.level)
        if base is None:
            return
        for alias in stmt.names:
            if alias.name == "*":
                self.module.star_imports.append(base)
            else:
                self.module.imports[alias.asname or alias.name] = f"{base}.{alias.name}"

    def _assignment(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        module = self.module
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if value is None:
            return
        if "__all__" in names and isinstance(value, ast.List | ast.Tuple):
            if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                module.all_names = tuple(str(e.value) for e in value.elts if isinstance(e, ast.Constant))
            return
        target = dotted_name(value)
        for name in names:
            if target is not None and not isinstance(value, ast.Subscript):
                module.aliases[name] = target
            else:
                # Rebound to something else: an earlier alias no longer holds.
                module.aliases.pop(name, None)


# -- the index -----------------------------------------------------------------


@dataclass
class SourceReads:
    """What a discovery read: every module name it looked for, found or not,
    and each file it parsed with the sha256 of the bytes it parsed (the
    verdict cache keys a stored discovery on them)."""

    names: set[str] = field(default_factory=set[str])
    files: dict[Path, str] = field(default_factory=dict[Path, str])


class SourceIndex:
    """Parsed modules, loaded on demand, and name resolution across them."""

    def __init__(self, search_path: Sequence[str], roots: frozenset[str]) -> None:
        self._search_path = list(search_path)
        #: Fully qualified names that count as resolved even when their module
        #: cannot be read (sglang's base classes when sglang is not installed).
        self._roots = roots
        self._modules: dict[str, ModuleSource | None] = {}
        #: target modules that could not be parsed: module -> note
        self.unparsed: dict[str, str] = {}

    def add(self, name: str, file: Path, *, strict: bool) -> ModuleSource | None:
        """Parse a module of a target. ``strict``: a parse error is a GateError
        (a single-file target); otherwise it is recorded in :attr:`unparsed`."""
        try:
            module: ModuleSource | None = parse_module(name, file)
        except SyntaxError as exc:
            if strict:
                raise GateError(f"{file}:{exc.lineno}: syntax error: {exc.msg}") from None
            self.unparsed[name] = f"{file}: not checked: syntax error at line {exc.lineno}: {exc.msg}"
            module = None
        except (OSError, ValueError) as exc:
            if strict:
                raise GateError(f"{file}: cannot read: {exc}") from None
            self.unparsed[name] = f"{file}: not checked: cannot read it: {exc}"
            module = None
        self._modules[name] = module
        return module

    def record(self, into: SourceReads) -> None:
        """Add what the index has read so far to ``into``.

        Discovery reads source only through its index: a file read around it
        would be missing from the key under which the verdict cache keeps a
        discovery, and a stale discovery could be reused after that file changed.
        """
        into.names.update(self._modules)
        into.files.update((m.file, m.sha256) for m in self._modules.values() if m is not None)

    def get(self, name: str) -> ModuleSource | None:
        """A module by name, parsed on first use; None when absent or unreadable.

        Modules outside the targets are read leniently: a syntax error in some
        dependency is not the user's input error.
        """
        if name not in self._modules:
            file = find_module_file(name, self._search_path)
            module = None
            if file is not None and file.is_file():
                try:
                    module = parse_module(name, file)
                except (SyntaxError, OSError, ValueError):
                    module = None
            self._modules[name] = module
        return self._modules[name]

    def resolve(self, module: ModuleSource, dotted: str, trail: list[str] | None = None, depth: int = 0) -> str | None:
        """The fully qualified ``module.Class`` that ``dotted`` names in ``module``.

        ``trail`` collects every module the resolution passes through (the
        starting module excluded), in order.
        """
        if depth > _MAX_DEPTH:
            return None
        head, _, rest = dotted.partition(".")
        if head in module.classes:
            return f"{module.name}.{dotted}" if dotted in module.classes else None
        if head in module.aliases:
            target = module.aliases[head] + (f".{rest}" if rest else "")
            if target.partition(".")[0] != head:  # `x = x.y` would loop
                return self.resolve(module, target, trail, depth + 1)
        if head in module.imports:
            full = module.imports[head] + (f".{rest}" if rest else "")
            return self.canonical(full, trail, depth + 1)
        # Star imports last: an explicit binding wins; among star imports the
        # later one wins, as at runtime.
        for star in reversed(module.star_imports):
            source = self.get(star)
            if source is not None and source.exports(head) and (source.binds(head) or source.star_imports):
                if trail is not None:
                    trail.append(source.name)
                found = self.resolve(source, dotted, trail, depth + 1)
                if found is not None:
                    return found
            elif source is None and f"{star}.{dotted}" in self._roots:
                return f"{star}.{dotted}"
        return None

    def canonical(self, full: str, trail: list[str] | None = None, depth: int = 0) -> str | None:
        """Follow re-exports until ``full`` names the module that defines the class."""
        if depth > _MAX_DEPTH:
            return None
        parts = full.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self.get(".".join(parts[:cut]))
            if module is None:
                continue
            if trail is not None:
                trail.append(module.name)
            found = self.resolve(module, ".".join(parts[cut:]), trail, depth + 1)
            return found or (full if full in self._roots else None)
        return full if full in self._roots else None

    def class_def(self, qualified: str) -> tuple[ModuleSource, ClassInfo] | None:
        """The module and class statement of a fully qualified class name."""
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self.get(".".join(parts[:cut]))
            if module is not None:
                info = module.classes.get(".".join(parts[cut:]))
                return None if info is None else (module, info)
        return None

    def bases(self, qualified: str, trail: list[str] | None = None) -> list[str]:
        """The resolved direct bases of a class (unresolvable ones left out)."""
        found = self.class_def(qualified)
        if found is None:
            return []
        module, info = found
        resolved: list[str] = []
        for base in info.node.bases:
            dotted = dotted_name(base)
            target = None if dotted is None else self.resolve(module, dotted, trail)
            if target is not None and target != qualified:
                resolved.append(target)
        return resolved

    def missing_sglang_bases(self, qualified: str) -> tuple[tuple[str, str], ...]:
        """The direct bases of a class that it imports from an sglang module
        the sglang read here does not have: ``(base as imported, the missing
        module)``, e.g. ``("sglang.srt.speculative.eagle_worker.EAGLEWorker",
        "sglang.srt.speculative.eagle_worker")`` on a release without V1
        workers. A base that resolves, or is not imported from sglang, is not one."""
        found = self.class_def(qualified)
        if found is None:
            return ()
        module, info = found
        missing: list[tuple[str, str]] = []
        for base in info.node.bases:
            dotted = dotted_name(base)
            if dotted is None or self.resolve(module, dotted) is not None:
                continue
            head, _, rest = dotted.partition(".")
            full = module.imports.get(head)
            if full is None or not full.startswith("sglang."):
                continue
            full += f".{rest}" if rest else ""
            owner = full.rpartition(".")[0]
            if self.get(owner) is None:
                missing.append((full, owner))
        return tuple(missing)

    def ancestry(self, qualified: str, trail: list[str] | None = None) -> tuple[str, ...]:
        """Resolved base classes of ``qualified``, breadth first; a root ends its branch."""
        seen: list[str] = []
        queue = [qualified]
        while queue and len(seen) < 200:
            current = queue.pop(0)
            if current in self._roots and current != qualified:
                continue  # a root's own bases are not interesting
            for base in self.bases(current, trail):
                if base not in seen and base != qualified:
                    seen.append(base)
                    queue.append(base)
        return tuple(seen)
