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

``if`` tests that both checkers evaluate statically are evaluated here the
same way (``sys.version_info`` and ``sys.platform`` comparisons, with
``not``/``and``/``or``), so a class defined only on another Python version is
not checked against this one; it is reported as a note instead.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import operator
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

from spec_protocols.gate._model import GateError
from spec_protocols.gate._module_paths import find_module_file

__all__ = ["ClassInfo", "ModuleSource", "SourceIndex", "SourceReads", "Unreachable", "dotted_name", "parse_module"]

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
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def binds(self, name: str) -> bool:
        """Whether the module binds ``name`` itself (not through a star import)."""
        return name in self.classes or name in self.aliases or name in self.imports

    def exports(self, name: str) -> bool:
        """Whether ``from this_module import *`` would bind ``name``."""
        if self.all_names is not None:
            return name in self.all_names
        return not name.startswith("_")


def dotted_name(expr: ast.expr) -> str | None:
    """``a.b.C`` for a Name/Attribute chain (``Base[T]`` reads as ``Base``); None otherwise."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        head = dotted_name(expr.value)
        return None if head is None else f"{head}.{expr.attr}"
    if isinstance(expr, ast.Subscript):  # Generic[T], SomeBase[int]
        return dotted_name(expr.value)
    return None


def absolute_module(package: str, module: str | None, level: int) -> str | None:
    """The absolute name of ``from <level dots><module> import ...`` inside ``package``."""
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base) or None


# -- static conditions -------------------------------------------------------


def _is_sys_attr(expr: ast.expr, attr: str) -> bool:
    return isinstance(expr, ast.Attribute) and expr.attr == attr and dotted_name(expr.value) == "sys"


def _version_operand(expr: ast.expr) -> tuple[int, ...] | None:
    if isinstance(expr, ast.Tuple) and all(isinstance(e, ast.Constant) and type(e.value) is int for e in expr.elts):
        return tuple(e.value for e in expr.elts if isinstance(e, ast.Constant) and isinstance(e.value, int))
    return None


_Comparable = tuple[int, ...] | int | str
_OPERATORS: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _compare(op: ast.cmpop, left: _Comparable, right: object) -> bool | None:
    """``left <op> right`` for the operand types the checkers evaluate; None otherwise."""
    if not isinstance(right, type(left)):
        return None
    apply = _OPERATORS.get(type(op))
    return None if apply is None else bool(apply(left, right))


def static_truth(test: ast.expr) -> bool | None:
    """The value both static checkers give ``test`` on this interpreter, or None.

    Understands what mypy and pyright evaluate: ``sys.version_info`` compared
    with a tuple (also ``sys.version_info[0]`` or ``[:2]``), ``sys.platform``
    compared with a string or ``sys.platform.startswith(...)``, combined with
    ``not``, ``and`` and ``or``. ``TYPE_CHECKING`` is deliberately unknown:
    the checkers see its body, the import does not, and the runtime checker
    reports such a class as missing at runtime on its own.
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = static_truth(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [static_truth(v) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in values else (True if all(v is True for v in values) else None)
        return True if True in values else (False if all(v is False for v in values) else None)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "startswith":
        if _is_sys_attr(test.func.value, "platform") and len(test.args) == 1:
            arg = test.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                return sys.platform.startswith(arg.value)
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and len(test.comparators) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _is_sys_attr(left, "platform") and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return _compare(op, sys.platform, right.value)
    version: tuple[int, ...] = tuple(sys.version_info[:3])
    if isinstance(left, ast.Subscript) and _is_sys_attr(left.value, "version_info"):
        index = left.slice
        if isinstance(index, ast.Constant) and type(index.value) is int and isinstance(right, ast.Constant):
            value = sys.version_info[index.value]
            return _compare(op, value, right.value) if isinstance(value, int) else None
        if isinstance(index, ast.Slice) and index.lower is None and isinstance(index.upper, ast.Constant):
            upper = index.upper.value
            operand = _version_operand(right)
            if type(upper) is int and operand is not None:
                return _compare(op, version[:upper], operand)
        return None
    if _is_sys_attr(left, "version_info"):
        operand = _version_operand(right)
        if operand is not None:
            # Compare as the checkers do: on as many components as the tuple has.
            return _compare(op, version[: len(operand)], operand)
    return None


# -- parsing -------------------------------------------------------------------


def parse_module(name: str, file: Path) -> ModuleSource:
    """Parse ``file`` as module ``name``; raises SyntaxError, OSError or ValueError."""
    data = file.read_bytes()
    tree = ast.parse(data, filename=str(file))
    # decode_source honours a PEP 263 coding line, as the parser did.
    module = ModuleSource(name, file, file.name == "__init__.py", tree, importlib.util.decode_source(data))
    module.sha256 = hashlib.sha256(data).hexdigest()
    _Binder(module).bind(tree.body)
    return module


class _Binder:
    """Walks the statements the import executes at module level."""

    def __init__(self, module: ModuleSource) -> None:
        self.module = module

    def bind(self, body: Iterable[ast.stmt], prefix: str = "", unreachable: str | None = None) -> None:
        """Bind the names of ``body``; ``unreachable`` is the (false) condition
        guarding it, when it is statically false."""
        for stmt in body:
            self._statement(stmt, prefix, unreachable)

    def _statement(self, stmt: ast.stmt, prefix: str, unreachable: str | None) -> None:
        module = self.module
        if isinstance(stmt, ast.ClassDef):
            qual = f"{prefix}{stmt.name}"
            if unreachable is not None:
                module.unreachable.append(Unreachable(qual, stmt.lineno, unreachable))
                return
            module.classes[qual] = ClassInfo(qual, stmt)
            # Only class statements count inside a class body: its other
            # names are attributes, not module bindings.
            self._nested_classes(stmt.body, qual + ".")
            return
        if unreachable is not None:
            # Nothing here is bound; only its classes are worth a note.
            for block in _blocks(stmt):
                self.bind(block, prefix, unreachable)
            return
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    module.imports[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    module.imports[top] = top
        elif isinstance(stmt, ast.ImportFrom):
            base = absolute_module(module.package, stmt.module, stmt.level)
            if base is None:
                return
            for alias in stmt.names:
                if alias.name == "*":
                    module.star_imports.append(base)
                else:
                    module.imports[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            self._assignment(stmt)
        elif isinstance(stmt, ast.If):
            truth = static_truth(stmt.test)
            condition = ast.unparse(stmt.test)
            self.bind(stmt.body, prefix, None if truth is not False else f"{condition}")
            self.bind(stmt.orelse, prefix, None if truth is not True else f"not ({condition})")
        else:
            for block in _blocks(stmt):
                self.bind(block, prefix)

    def _nested_classes(self, body: Iterable[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                self._statement(stmt, prefix, None)
            elif isinstance(stmt, ast.If):
                truth = static_truth(stmt.test)
                if truth is not False:
                    self._nested_classes(stmt.body, prefix)
                if truth is not True:
                    self._nested_classes(stmt.orelse, prefix)
            else:
                for block in _blocks(stmt):
                    self._nested_classes(block, prefix)

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


def _blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists a compound statement may run at module level
    (functions excluded: their bodies do not run at import)."""
    if isinstance(stmt, ast.If | ast.For | ast.While):
        yield stmt.body
        yield stmt.orelse
    elif isinstance(stmt, ast.Try | ast.TryStar):
        yield stmt.body
        for handler in stmt.handlers:
            yield handler.body
        yield stmt.orelse
        yield stmt.finalbody
    elif isinstance(stmt, ast.With):
        yield stmt.body
    elif isinstance(stmt, ast.Match):
        for case in stmt.cases:
            yield case.body


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
