"""Where a checked class lies in its own source, and what in it no checker models.

mypy and pyright analyse the plugin's modules anyway; what they report *at a
checked class's own lines* is that class's problem (issue 20, item 1):

* its ``class`` statement and its decorators;
* its members' definitions: each ``def`` line with its decorators and its
  signature, and every class-level statement (an assignment, an annotation);
* its constructor (``__init__``, ``__new__``, ``__post_init__``,
  ``__attrs_post_init__``): its signature, and each statement of its body
  that meets sglang (a call of an sglang callable, of ``super()``, or of a
  method of an object sglang passed; a store on such an object, or on a
  member sglang's base defines): construction is part of the contract
  (sglang builds the class: ``Scheduler.maybe_init_draft_worker``,
  ``build_draft_tp_worker``). The rest of its body is the author's own
  type-check, a count in a note like any other body's.

What they report elsewhere inside a member's body is the author's own
type-check: counted in a note, never a verdict. What they report at the lines
of spec_protocols' own class decorators (``spec_worker_class``,
``draft_worker_class``: ``DiscoveredClass.own_decorator_lines``, resolved by
discovery) is neither: the decorators hold the class to the pinned release
for the IDE, and the harness holds it to the release checked. Members inherited from a base
in the plugin's own modules count where a lookup on the class finds them
(``DiscoveredClass.members``); sglang's and this package's never do.

The same reading recognizes, from the source and never from a name, the
constructs a checker cannot model, so that its column is ``unverified`` with
the reason instead of a false ``fail`` (item 6): a class an ``attrs``
decorator makes (its generated ``__init__``), a member defined with
``functools.cached_property``, a class with ``__getattr__`` (members only an
instance lookup reaches). Nothing here runs target code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from spec_protocols.gate._model import DiscoveredClass
from spec_protocols.gate._source import ParseCache, dotted_name

__all__ = ["CONSTRUCTORS", "ClassRegions", "class_regions", "resolved"]

#: The methods that run when sglang builds the class: every line of them counts.
CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__", "__attrs_post_init__"})

#: The decorators with which attrs generates a class's ``__init__``, by their
#: resolved dotted names (``import attrs`` / ``import attr`` / ``from attrs import define``).
_ATTRS_DECORATORS = frozenset(
    f"{module}.{name}"
    for module in ("attr", "attrs")
    for name in ("s", "attrs", "define", "mutable", "frozen", "dataclass")
)
#: ``functools.cached_property``, however the module imports it.
_CACHED_PROPERTY = "functools.cached_property"
#: ``functools.partialmethod``: a class-level ``name = partialmethod(...)``.
_PARTIAL_METHOD = "functools.partialmethod"

#: The packages whose definitions are never the plugin's to answer for.
_NOT_THE_PLUGIN = ("sglang.", "spec_protocols.")

#: A span of lines in one file: (file, first, last), 1-based, inclusive.
Span = tuple[Path, int, int]
#: A span of the class's own lines, with the member it defines (None: the class statement).
Named = tuple[Path, int, int, str | None]


@dataclass(frozen=True, slots=True)
class ClassRegions:
    """A checked class's own lines, and what in it no checker models."""

    #: Where a checker's diagnostic is the class's problem.
    contract: tuple[Named, ...] = ()
    #: The bodies of its other members: a diagnostic there is a count in a note.
    bodies: tuple[Span, ...] = ()
    #: Lines where a diagnostic is never the class's: imports (a third-party
    #: module the plugin uses, seen or not).
    excluded: tuple[Span, ...] = ()
    #: Class-level assignments without an annotation: a type declared for
    #: the name there is a base's, and what sglang calls is judged by the
    #: protocol, not by the base's declaration.
    assigned: tuple[Span, ...] = ()
    #: An attrs decorator writes its ``__init__`` (neither checker is given attrs).
    attrs: bool = False
    #: Members defined with ``functools.cached_property`` (read as attributes).
    cached_properties: frozenset[str] = frozenset()
    #: Members defined as ``functools.partialmethod(...)`` (bound like methods).
    partial_methods: frozenset[str] = frozenset()
    #: The ``class`` statement's line when spec_protocols' own class
    #: decorators apply to it: mypy reports a class decorator's application
    #: (its ``type-var``/``arg-type`` error) there, not at the decorator.
    decorated: tuple[Span, ...] = ()

    def applies_own_decorator(self, file: Path, line: int) -> bool:
        """Whether the line is the statement of a class spec_protocols' own decorators apply to."""
        return any(_holds(s, file, line) for s in self.decorated)

    def assigns_inherited(self, file: Path, line: int) -> bool:
        """Whether the line is a class-level assignment of a name the class does not annotate."""
        return any(_holds(s, file, line) for s in self.assigned)

    def place(self, file: Path, line: int) -> tuple[str, str | None] | None:
        """``("contract", member)``, ``("body", None)`` or None (not the
        class's lines, or excluded); ``member``: the member whose definition
        holds the line (None: the class statement)."""
        if any(_holds(s, file, line) for s in self.excluded):
            return None
        for span in self.contract:
            if _holds(span[:3], file, line):
                return "contract", span[3]
        if any(_holds(s, file, line) for s in self.bodies):
            return "body", None
        return None


def _holds(span: Span, file: Path, line: int) -> bool:
    return span[1] <= line <= span[2] and span[0] == file


def class_regions(classes: Sequence[DiscoveredClass]) -> dict[str, ClassRegions]:
    """The regions of each class (by dotted path) whose source can be read."""
    cache = ParseCache()
    found: dict[str, ClassRegions] = {}
    for cls in classes:
        regions = _Reader(cache).read(cls)
        if regions is not None:
            found[cls.dotted] = regions
    return found


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[int, int]:
    """The lines of a definition's decorators, its own line and its signature."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    body = node.body[0].lineno if node.body else node.lineno
    return first, max(node.lineno, body - 1)


def _class_level(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a class body runs at its own level, inside ``if``/``try`` too."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _class_level(stmt.body)
            yield from _class_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                yield from _class_level(block)
        else:
            yield stmt


def _imports(tree: ast.Module) -> dict[str, str]:
    """What each module-level import binds, as a dotted name (``np`` -> ``numpy``)."""
    bound: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    bound[top] = top
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                bound[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return bound


def resolved(expr: ast.expr, imports: Mapping[str, str]) -> str | None:
    """The dotted name ``expr`` (a decorator, perhaps called) refers to, through the module's imports."""
    if isinstance(expr, ast.Call):
        expr = expr.func
    name = dotted_name(expr)
    if name is None:
        return None
    head, dot, rest = name.partition(".")
    return f"{imports[head]}{dot}{rest}" if head in imports else name


class _Reader:
    def __init__(self, cache: ParseCache) -> None:
        self.cache = cache
        self.contract: list[Named] = []
        self.bodies: list[Span] = []
        self.excluded: list[Span] = []
        self.assigned: list[Span] = []
        #: The members the class gets from sglang's bases (a store on one meets sglang).
        self.sglang_members: frozenset[str] = frozenset()

    def tree(self, file: Path) -> ast.Module | None:
        parsed = self.cache.parse(file)
        return parsed.tree if parsed is not None else None

    def read(self, cls: DiscoveredClass) -> ClassRegions | None:
        tree = self.tree(cls.file)
        if tree is None:
            return None
        node = _find_class(tree, cls.qualname.rpartition(".")[2], cls.line)
        if node is None:
            return None
        file = cls.file.resolve()
        imports = _imports(tree)
        self.sglang_members = frozenset(m.name for m in cls.members if m.owner.startswith("sglang."))
        # spec_protocols' own class decorators (spec_worker_class,
        # draft_worker_class), as discovery resolved them: what a checker
        # says at their lines is the IDE's view of the pinned release; the
        # harness holds the class to the release checked, member by member.
        self.excluded.extend((file, line, line) for line in cls.own_decorator_lines)
        self.contract.append((file, *_header(node), None))
        cached: set[str] = set()
        partial: set[str] = set()
        for stmt in _class_level(node.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.member(file, stmt, imports)
                if any(resolved(d, imports) == _CACHED_PROPERTY for d in stmt.decorator_list):
                    cached.add(stmt.name)
            elif not isinstance(stmt, ast.ClassDef):
                span = (file, stmt.lineno, stmt.end_lineno or stmt.lineno)
                self.contract.append((*span, _assigned_name(stmt)))
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    self.excluded.append(span)
                elif isinstance(stmt, (ast.Assign, ast.AugAssign)):
                    self.assigned.append(span)
                name = _assigned_name(stmt)
                value = getattr(stmt, "value", None)
                if name is not None and isinstance(value, ast.Call) and resolved(value, imports) == _PARTIAL_METHOD:
                    partial.add(name)
        for member in cls.members:
            # A member inherited from a base in the plugin's own modules.
            if member.owner == cls.dotted or member.owner.startswith(_NOT_THE_PLUGIN):
                continue
            self.inherited(member.file, member.line)
        attrs = any(resolved(d, imports) in _ATTRS_DECORATORS for d in node.decorator_list)
        decorated = ((file, node.lineno, node.lineno),) if cls.own_decorator_lines else ()
        return ClassRegions(
            tuple(self.contract), tuple(self.bodies), tuple(self.excluded), tuple(self.assigned), attrs, frozenset(cached),
            frozenset(partial), decorated,
        )

    def member(self, file: Path, node: ast.FunctionDef | ast.AsyncFunctionDef, imports: Mapping[str, str]) -> None:
        first, last = _header(node)
        end = node.end_lineno or node.lineno
        if node.name in CONSTRUCTORS:
            self.contract.append((file, first, last, node.name))
            meets = _Meets(imports, _parameters(node), self.sglang_members)
            for stmt in _leaves(node.body):
                span = (file, stmt.lineno, stmt.end_lineno or stmt.lineno)
                if meets.sglang(stmt):
                    self.contract.append((*span, node.name))
                else:
                    self.bodies.append(span)
            for inner in ast.walk(node):
                # An import inside the constructor is a module the plugin
                # uses; a ``**mapping`` or ``*iterable`` argument is one the
                # checkers type as a whole (every value against every
                # parameter), so what they say of it is no fact about the call.
                unpacked = [k.value for k in inner.keywords if k.arg is None] if isinstance(inner, ast.Call) else []
                if isinstance(inner, ast.Call):
                    unpacked += [a for a in inner.args if isinstance(a, ast.Starred)]
                for part in [inner] if isinstance(inner, (ast.Import, ast.ImportFrom)) else unpacked:
                    self.excluded.append((file, part.lineno, part.end_lineno or part.lineno))
            return
        self.contract.append((file, first, last, node.name))
        if end > last:
            self.bodies.append((file, last + 1, end))

    def inherited(self, file: Path, line: int) -> None:
        tree = self.tree(file)
        if tree is None:
            return
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line:
                self.member(file.resolve(), node, _imports(tree))
                return


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """A constructor's parameters but its first (self): what sglang passes it."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return frozenset(names[1:] if names else ())


def _leaves(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The simple statements of a body, inside ``if``/``for``/``while``/``with``/``try`` too."""
    for stmt in body:
        blocks: list[object] = [getattr(stmt, part, None) for part in ("body", "orelse", "finalbody")]
        handlers: list[ast.ExceptHandler] = getattr(stmt, "handlers", [])
        blocks += [h.body for h in handlers]
        nested: list[list[ast.stmt]] = [cast("list[ast.stmt]", b) for b in blocks if isinstance(b, list)]
        if nested and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for block in nested:
                yield from _leaves(block)
        else:
            yield stmt


@dataclass(frozen=True, slots=True)
class _Meets:
    """Whether a constructor statement meets sglang's API."""

    imports: Mapping[str, str]
    #: The constructor's parameters: the objects sglang passes it.
    passed: frozenset[str]
    #: The members sglang's bases define on the class.
    sglang_members: frozenset[str]

    def sglang(self, stmt: ast.stmt) -> bool:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and self.callee(node.func):
                return True
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                if any(self.stored(t) for t in targets):
                    return True
        return False

    def _root(self, expr: ast.expr) -> tuple[ast.expr, list[str]]:
        """The innermost object of an attribute chain, and the attributes read on it."""
        names: list[str] = []
        while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
            if isinstance(expr, ast.Attribute):
                names.append(expr.attr)
            expr = expr.value if isinstance(expr, (ast.Attribute, ast.Subscript)) else expr.func
        return expr, names[::-1]

    def callee(self, func: ast.expr) -> bool:
        """A callable of sglang's: imported from it, ``super()``'s, a passed object's, or of a member sglang's base defines."""
        root, names = self._root(func)
        if not isinstance(root, ast.Name):
            return False
        if root.id == "super" or root.id in self.passed:
            return True
        if root.id == "self":
            return bool(names) and names[0] in self.sglang_members
        return self.imports.get(root.id, "").startswith("sglang.")

    def stored(self, target: ast.expr) -> bool:
        """A store on an object sglang passed, or on a member sglang's base defines."""
        for leaf in ast.walk(target):
            if isinstance(leaf, ast.Attribute):
                root, names = self._root(leaf)
                if isinstance(root, ast.Name) and (root.id in self.passed or (root.id == "self" and names and names[0] in self.sglang_members)):
                    return True
        return False


def _assigned_name(stmt: ast.stmt) -> str | None:
    """The name a class-level statement binds, when it binds one plain name."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return names[0] if len(names) == 1 else None


def _find_class(tree: ast.Module, name: str, line: int) -> ast.ClassDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name and node.lineno == line:
            return node
    return None
