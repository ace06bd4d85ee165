"""Reader: the server's options, their defaults, and where the scheduler side reads them.

A use of the spec worker that sits behind a server option (``if
self.disaggregation_mode == DisaggregationMode.DECODE:``, ``if not
(get_memory().enable_hierarchical_cache or ...): return``) is made only by a
server started with that option; a server started with none takes the other
path. Which side is the default is read, never assumed: an option's default
is the literal its declaration gives, found in ``server_args.py`` (the
``ServerArgs`` dataclass of the releases up to 0.5.22) and in
``arg_groups/fields/`` (the namespaces 0.5.23 assembles it from). A condition
over one option is a *server flag* (:class:`ServerFlag`) when it is false for
that default; one that holds by default is the path every server takes.

Where the options are read, by their shape and never by a list of names:

- ``<x>.server_args.<option>`` and ``server_args.<option>``;
- ``get_<namespace>().<option>`` (0.5.23's resolved namespaces:
  ``get_memory().enable_hierarchical_cache``), any getter named ``get_...``
  called with no argument;
- a scheduler field set from one (``self.disaggregation_mode =
  DisaggregationMode(get_disagg().disaggregation_mode)``,
  ``self.enable_hierarchical_cache = server_args.enable_hierarchical_cache``),
  when the assignments of the field in the scheduler side's classes that
  read an option all read the same one.

A comparison with an enum member (``DisaggregationMode.DECODE``) compares
with that member's value, read from the enum's body. An option whose default
is not a literal, or a field whose option is ambiguous, is no flag: the use
then stays required on every path, which may hold a worker to too much,
never to too little.
"""

from __future__ import annotations

import ast
import operator
import re
import weakref
from pathlib import Path
from collections.abc import Callable, Mapping
from typing import Any

from spec_protocols.gate._contract._extract._receivers import is_scheduler
from spec_protocols.gate._contract._extract._resolve import resolve
from spec_protocols.gate._contract._extract._scope import Scope
from spec_protocols.gate._contract._extract._syntax import last_name, self_attribute, text
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree
from spec_protocols.gate._contract._release_contract import ServerFlag
from spec_protocols.gate._source import assigned

__all__ = ["ServerOptions", "server_options"]

#: A default the declaration does not give as a literal.
_UNKNOWN = object()
#: How many locals and wrapping calls deep an option read is followed.
_MAX_HOPS = 3
#: The scheduler side's folders, whose classes' fields may carry an option.
_SIDE = ("managers", "disaggregation")
_COMPARE: Mapping[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}


class ServerOptions:
    """The release's server options with a literal default, and the scheduler fields that carry one."""

    def __init__(self, tree: ReleaseTree, defaults: Mapping[str, object]) -> None:
        # Weakly: the memo below is keyed weakly on the tree, and a value that
        # held its key would keep every release's parsed tree alive for good.
        self._tree = weakref.ref(tree)
        #: Option -> its default (:data:`_UNKNOWN` where not a literal).
        self.defaults = defaults
        self._fields: dict[str, str | None] = {}
        self._assigned: dict[int, dict[str, list[ast.expr]]] = {}
        self._assigned_names: dict[str, list[Path]] | None = None

    @property
    def tree(self) -> ReleaseTree:
        tree = self._tree()
        assert tree is not None, "a release tree's options outlived the tree"
        return tree

    def option_read(self, expr: ast.expr, scope: Scope | None, depth: int = 0) -> str | None:
        """The option ``expr`` reads (``server_args.x``, ``get_memory().x``,
        ``Enum(<one of those>)``, and with a ``scope``, a scheduler field set
        from one), if any."""
        if depth > _MAX_HOPS:
            return None
        if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
            return self.option_read(expr.args[0], scope, depth + 1)  # DisaggregationMode(get_disagg().disaggregation_mode)
        if isinstance(expr, ast.Name) and scope is not None:
            bound = scope.binding(expr.id)  # mode = scheduler.disaggregation_mode; if mode == ...:
            return self.option_read(bound[0], scope, depth + 1) if bound and len(bound) == 1 else None
        if not isinstance(expr, ast.Attribute):
            return None
        if expr.attr in self.defaults and _holds_options(expr.value):
            return expr.attr
        if scope is not None and is_scheduler(expr.value, scope):
            return self.field(expr.attr)
        return None

    def _decided(self, options: tuple[str, ...]) -> tuple[str, ...]:
        """Those of ``options`` declared with no value: sglang decides them at start-up."""
        return tuple(o for o in options if self.defaults.get(o, _UNKNOWN) is None)

    def mentioned(self, test: ast.expr, scope: Scope, depth: int = 0) -> bool:
        """Whether ``test`` may read an option (the cheap filter before a
        test is taken apart): an attribute named as an option, or as a field
        the scheduler side assigns, directly or through a local."""
        for node in ast.walk(test):
            if isinstance(node, ast.Attribute) and (node.attr in self.defaults or node.attr in self._assignable()):
                return True
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                bound = scope.binding(node.id)
                if depth < _MAX_HOPS and bound and len(bound) == 1 and isinstance(bound[0], ast.Attribute):
                    if self.mentioned(bound[0], scope, depth + 1):
                        return True
        return False

    def _assignable(self) -> dict[str, list[Path]]:
        """Each ``self.<name> =`` of the scheduler side's files (by their text,
        read once): name -> the files that assign it."""
        if self._assigned_names is None:
            pattern = re.compile(r"self\.(\w+)\s*(?::[^=\n]*)?=[^=]")
            names: dict[str, list[Path]] = {}
            for folder in _SIDE:
                for path in self.tree.files_under(folder):
                    for name in dict.fromkeys(pattern.findall(self.tree.text(path) or "")):
                        names.setdefault(name, []).append(path)
            self._assigned_names = names
        return self._assigned_names

    def field(self, name: str) -> str | None:
        """The option the scheduler field ``name`` carries: the assignments of
        ``self.<name>`` in the scheduler side's classes that read an option
        all read the same one. An assignment that reads none (a parameter, a
        literal reset) does not count: the scheduler side's classes are
        walked as one scheduler, and a helper class's own field of the same
        name would otherwise hide the scheduler's. Read on demand, in the
        files whose text assigns it."""
        if name not in self._fields:
            found: set[str] = set()
            for path in self._assignable().get(name, ()):
                module = self.tree.module_at(path)
                for value in self._assignments(module).get(name, ()) if module is not None else ():
                    option = self.option_read(value, None)
                    if option is not None:
                        found.add(option)
            self._fields[name] = found.pop() if len(found) == 1 else None
        return self._fields[name]

    def _assignments(self, module: Module) -> dict[str, list[ast.expr]]:
        """``self.<name> = value`` in ``module``: name -> the values (one walk of a module)."""
        key = id(module)
        if key not in self._assigned:
            found: dict[str, list[ast.expr]] = {}
            for node in ast.walk(module.tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    for target in assigned(node):
                        attr = self_attribute(target)
                        if attr is not None:
                            found.setdefault(attr, []).append(node.value)
            self._assigned[key] = found
        return self._assigned[key]

    def flag(self, expr: ast.expr, polarity: bool, scope: Scope, tree: ReleaseTree) -> ServerFlag | None:
        """``expr`` being ``polarity`` as a server flag: a test of one option
        (truth, or a comparison with a literal or an enum member) that the
        option's default fails. None for anything else, or one the default passes."""
        words = text(expr) if polarity else f"not ({text(expr)})"
        option = self.option_read(expr, scope)
        if option is not None:
            default = self.defaults[option]
            if default is _UNKNOWN or bool(default) == polarity:
                return None
            return ServerFlag(words, ((option, repr(polarity)),), self._decided((option,)))
        if not isinstance(expr, ast.Compare) or len(expr.ops) != 1:
            return None
        op, left, right = expr.ops[0], expr.left, expr.comparators[0]
        option = self.option_read(left, scope)
        if option is None:
            return None
        default = self.defaults[option]
        if default is _UNKNOWN:
            return None
        if isinstance(op, (ast.In, ast.NotIn)):
            values = [_value(e, scope, tree) for e in right.elts] if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [_UNKNOWN]
            if any(v is _UNKNOWN for v in values):
                return None
            holds_by_default = (default in values) == isinstance(op, ast.In)
            if holds_by_default == polarity:
                return None
            positive = isinstance(op, ast.In) == polarity
            return ServerFlag(words, tuple((option, repr(v)) for v in values) if positive else ((option, ""),), self._decided((option,)))
        compare = _COMPARE.get(type(op))
        value = _value(right, scope, tree)
        if compare is None or value is _UNKNOWN:
            return None
        try:
            holds_by_default = bool(compare(default, value))
        except TypeError:
            return None
        if holds_by_default == polarity:
            return None
        return ServerFlag(words, ((option, _setting(op, value, polarity)),), self._decided((option,)))


def _setting(op: ast.cmpop, value: object, polarity: bool) -> str:
    """A value of the option that makes the comparison ``polarity`` (as a
    literal), or ``""`` where no one value can be named (``!=``)."""
    if polarity and isinstance(op, (ast.Eq, ast.Is)) or not polarity and isinstance(op, (ast.NotEq, ast.IsNot)):
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool):
        wanted_greater = isinstance(op, (ast.Gt, ast.GtE)) == polarity
        strict = isinstance(op, (ast.Gt, ast.Lt)) == polarity
        step = 1 if strict else 0
        return repr(value + step if wanted_greater else value - step)
    return ""


def _holds_options(holder: ast.expr) -> bool:
    """``server_args`` / ``x.server_args``, or ``get_<namespace>()``."""
    if isinstance(holder, (ast.Name, ast.Attribute)):
        return last_name(holder) == "server_args"
    if isinstance(holder, ast.Call) and not holder.args and not holder.keywords:
        return last_name(holder.func).startswith("get_") if isinstance(holder.func, (ast.Name, ast.Attribute)) else False
    return False


def _value(expr: ast.expr, scope: Scope, tree: ReleaseTree) -> object:
    """A literal's value, or an enum member's (``DisaggregationMode.DECODE`` -> ``"decode"``)."""
    try:
        return ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        found = resolve(tree, expr.value, scope)
        if found is not None and isinstance(found[1], ast.ClassDef):
            for node in found[1].body:
                if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.attr for t in node.targets):
                    return _literal(node.value)
    return _UNKNOWN


def _literal(expr: ast.expr | None) -> object:
    if expr is None:
        return _UNKNOWN
    try:
        return ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN


_DECLARED = re.compile(r"^\s+\w+\s*:", re.MULTILINE)


#: Each tree's options, read once for all the walkers of one extraction (held no longer than the tree).
_READ: weakref.WeakKeyDictionary[ReleaseTree, ServerOptions] = weakref.WeakKeyDictionary()


def server_options(tree: ReleaseTree) -> ServerOptions:
    """The options of ``tree``'s release (see the module docstring), read once per tree."""
    found = _READ.get(tree)
    if found is None:
        found = _READ[tree] = _read(tree)
    return found


def _read(tree: ReleaseTree) -> ServerOptions:
    paths = [tree.srt / "server_args.py", *tree.files_under("arg_groups/fields")]
    declared: dict[str, set[object]] = {}
    unknown: set[str] = set()
    for module in tree.modules_among((p for p in paths if p.is_file()), _DECLARED):
        for cls in (n for n in module.run if isinstance(n, ast.ClassDef)):
            for node in cls.body:
                if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
                    continue
                default = _literal(node.value)
                try:
                    declared.setdefault(node.target.id, set()).add(default)
                except TypeError:  # an unhashable literal (a list): nothing a flag compares with
                    unknown.add(node.target.id)
    defaults = {name: next(iter(values)) if len(values) == 1 and name not in unknown else _UNKNOWN for name, values in declared.items()}
    return ServerOptions(tree, {n: d for n, d in defaults.items() if not n.startswith("_")})
