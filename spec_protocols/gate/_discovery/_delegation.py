"""What an instance of a class has besides what its class bodies define: attributes its ``__init__`` sets, and a delegating ``__getattr__``.

sglang reads members on the instance it built. A static checker sees a
class's body and the attributes its methods declare, but not what a
``__getattr__`` returns: sglang 0.5.11's V1 ``DFlashWorker`` says::

    def __getattr__(self, name):
        # Delegate anything not implemented yet to the target worker.
        return getattr(self.target_worker, name)

with ``self.target_worker = target_worker`` in ``__init__`` and the
parameter annotated ``TpModelWorker``. Its instance has every member a
``TpModelWorker`` instance has. Two readings, of different strength:

- :func:`instance_attributes` is what the checkers *declare*: the names a
  store ``self.<name> = value`` binds in an ``__init__`` along the class's
  method resolution order, or in a method one calls as ``self.<method>()``,
  each in the function's own statements (not a nested function or class).
  Where a class has ``__getattr__``, the instance lines of such a name are
  checked against that declaration, as for any class.
- :func:`delegation` decides presence without a checker, so it reads only
  what certainly runs. The ``__getattr__`` is the one a lookup finds (the
  last binding of the nearest class that binds it), a plain ``def`` whose
  body is one ``return getattr(self.<attr>, <its name parameter>)`` without
  a default, after at most guards ``if <name>.startswith("<prefix>"):
  raise ...`` (the names with those prefixes are not delegated). ``<attr>``
  is stored exactly once along the ``__init__`` chain, from a parameter
  annotated with one class (or by an annotated assignment), or is a
  ``@property`` annotated so. What an instance of that class has: its class
  bodies' members, and the stores its ``__init__`` makes unconditionally
  (the ``__init__``'s own top-level statements, the methods it calls on
  ``self`` there, and a base's ``__init__`` where it calls
  ``super().__init__(...)``).

Anything else (a ``getattr`` with a default, another guard, a second store
of the attribute, a union annotation) is no delegation: what it gives cannot
be read, and the gate keeps saying so.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from spec_protocols.gate._discovery._member_definitions import linearize, member_definitions
from spec_protocols.gate._discovery._source_index import ModuleSource, SourceIndex
from spec_protocols.gate._model import Delegation
from spec_protocols.gate._source import body_nodes, self_attribute

__all__ = ["delegation", "instance_attributes"]

#: A delegate's own bases are followed through sglang's roots too: what the
#: instance has is all of its class's members.
_FOLLOW_EVERY_BASE: frozenset[str] = frozenset()
#: How many ``self.<method>()`` calls deep an ``__init__`` is followed.
_MAX_CALLS = 3

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _binding(body: Sequence[ast.stmt], name: str) -> ast.stmt | None:
    """The last statement of a class body that binds ``name`` (a ``def``, an assignment), as at run time."""
    found: ast.stmt | None = None
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            found = stmt
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found = stmt
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            found = stmt
    return found


def _lookup(index: SourceIndex, order: Sequence[str], name: str) -> tuple[int, ModuleSource, ast.stmt] | None:
    """What a lookup of ``name`` finds along ``order`` (a method resolution order): its place there, module and statement."""
    for place, owner in enumerate(order):
        located = index.class_def(owner)
        if located is None:
            continue
        module, info = located
        found = _binding(info.node.body, name)
        if found is not None:
            return place, module, found
    return None


def _stored(node: ast.AST) -> list[str]:
    """The attributes ``node`` stores a value into on ``self`` (an annotation alone binds nothing)."""
    if isinstance(node, ast.Assign):
        targets = [p for t in node.targets for p in (t.elts if isinstance(t, ast.Tuple) else [t])]
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return []
    return [attr for t in targets if (attr := self_attribute(t)) is not None]


def _self_call(node: ast.AST | None) -> str | None:
    """``m`` for a call ``self.m(...)``."""
    return self_attribute(node.func) if isinstance(node, ast.Call) else None


def _inits(index: SourceIndex, order: Sequence[str]) -> Iterator[tuple[ModuleSource, _Function]]:
    """The ``__init__`` each class along ``order`` defines, with its module."""
    for owner in order:
        located = index.class_def(owner)
        init = _binding(located[1].node.body, "__init__") if located is not None else None
        if located is not None and isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield located[0], init


def _functions(index: SourceIndex, order: Sequence[str], name: str) -> Iterator[_Function]:
    """The ``__init__`` of every class along ``order``; for another name, the one a lookup finds."""
    if name == "__init__":
        yield from (init for _, init in _inits(index, order))
        return
    found = _lookup(index, order, name)
    if found is not None and isinstance(found[2], (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield found[2]


def instance_attributes(index: SourceIndex, qualified: str, roots: frozenset[str]) -> frozenset[str]:
    """What the checkers declare on an instance: each ``self.<name> = value``
    in the own statements of an ``__init__`` along the class's bases, or of a
    method one calls as ``self.<method>()`` (0.5.11's ``TpModelWorker``
    sets ``model_config`` in ``self._init_model_config()``)."""
    order = linearize(index, qualified, roots)
    found: set[str] = set()
    seen: set[str] = set()
    pending = [("__init__", 0)]
    while pending:
        name, depth = pending.pop()
        if name in seen or depth > _MAX_CALLS:
            continue
        seen.add(name)
        for func in _functions(index, order, name):
            for node in body_nodes(func.body):
                found.update(_stored(node))
                if (called := _self_call(node)) is not None:
                    pending.append((called, depth + 1))
    return frozenset(found)


def _certain_attributes(index: SourceIndex, order: Sequence[str], place: int = 0, depth: int = 0) -> set[str]:
    """What an instance certainly has once ``__init__`` ran (from ``order[place:]``):
    the stores among the ``__init__``'s top-level statements, those of the
    methods it calls there on ``self``, and its base's where it calls ``super().__init__()``."""
    found = _lookup(index, order[place:], "__init__")
    if found is None or depth > _MAX_CALLS:
        return set()
    at, _, init = found
    if not isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    return _runs(index, order, init, place + at, depth)


def _runs(index: SourceIndex, order: Sequence[str], func: _Function, place: int, depth: int) -> set[str]:
    """The stores ``func``'s top-level statements certainly make (``place``: its class's place in ``order``)."""
    stored: set[str] = set()
    for stmt in func.body:
        stored.update(_stored(stmt))
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (called := _self_call(call)) is not None and depth < _MAX_CALLS:
            method = _lookup(index, order, called)
            if method is not None and isinstance(method[2], (ast.FunctionDef, ast.AsyncFunctionDef)):
                stored |= _runs(index, order, method[2], method[0], depth + 1)
        elif _calls_super_init(call):
            stored |= _certain_attributes(index, order, place + 1, depth + 1)
    return stored


def _calls_super_init(call: ast.expr | None) -> bool:
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "__init__"
        and isinstance(call.func.value, ast.Call)
        and isinstance(call.func.value.func, ast.Name)
        and call.func.value.func.id == "super"
    )


def _delegated_attribute(func: _Function) -> tuple[str, tuple[str, ...]] | None:
    """``(attr, prefixes)`` when ``func`` is ``__getattr__(self, name)`` doing
    only ``if name.startswith(<prefix>): raise`` guards and ``return getattr(self.attr, name)``."""
    params = func.args.posonlyargs + func.args.args
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(params) != 2 or func.decorator_list or not body:
        return None
    name = params[1].arg
    prefixes: list[str] = []
    for guard in body[:-1]:
        prefix = _refused_prefix(guard, name)
        if prefix is None:
            return None
        prefixes.append(prefix)
    last = body[-1]
    if not isinstance(last, ast.Return) or not _is_getattr_of(last.value, name):
        return None
    assert isinstance(last.value, ast.Call)
    attr = self_attribute(last.value.args[0])
    return None if attr is None else (attr, tuple(prefixes))


def _refused_prefix(guard: ast.stmt, name: str) -> str | None:
    """``prefix`` for ``if <name>.startswith("<prefix>"): raise ...``."""
    if not (isinstance(guard, ast.If) and not guard.orelse and len(guard.body) == 1 and isinstance(guard.body[0], ast.Raise)):
        return None
    test = guard.test
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr == "startswith"
        and isinstance(test.func.value, ast.Name)
        and test.func.value.id == name
        and len(test.args) == 1
        and not test.keywords
        and isinstance(test.args[0], ast.Constant)
        and isinstance(test.args[0].value, str)
    ):
        return test.args[0].value
    return None


def _is_getattr_of(value: ast.expr | None, name: str) -> bool:
    """``getattr(<held>, name)``, with no default."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "getattr"
        and len(value.args) == 2
        and not value.keywords
        and isinstance(value.args[1], ast.Name)
        and value.args[1].id == name
    )


def _annotation_of(index: SourceIndex, order: Sequence[str], attr: str) -> tuple[ModuleSource, ast.expr] | None:
    """The annotation that says what ``self.<attr>`` holds, with the module
    it is written in: its one store along the ``__init__`` chain, else a ``@property``."""
    stores = [
        (module, init, n)
        for module, init in _inits(index, order)
        for n in body_nodes(init.body)
        if isinstance(n, ast.stmt) and attr in _stored(n)
    ]
    if len(stores) > 1:
        return None  # stored twice: which value it holds is not one annotation
    if stores:
        module, init, stmt = stores[0]
        if isinstance(stmt, ast.AnnAssign):
            return module, stmt.annotation
        annotated = {a.arg: a.annotation for a in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs) if a.annotation}
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name):
            found = annotated.get(stmt.value.id)
            return (module, found) if found is not None else None
        return None
    prop = _lookup(index, order, attr)
    if prop is not None and isinstance(prop[2], (ast.FunctionDef, ast.AsyncFunctionDef)) and prop[2].returns is not None:
        if any(isinstance(d, ast.Name) and d.id == "property" for d in prop[2].decorator_list):
            return prop[1], prop[2].returns
    return None


def delegation(index: SourceIndex, qualified: str, roots: frozenset[str]) -> Delegation | None:
    """The class's delegating ``__getattr__``, as read (None: it has none, or one the gate cannot read)."""
    order = linearize(index, qualified, roots)
    found = _lookup(index, order, "__getattr__")
    if found is None or not isinstance(found[2], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    read = _delegated_attribute(found[2])
    if read is None:
        return None
    attr, refused = read
    annotation = _annotation_of(index, order, attr)
    if annotation is None:
        return None
    module, expr = annotation
    written = expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else ast.unparse(expr)
    if not written.replace(".", "").replace("_", "").isalnum():
        return None  # a union, an Optional, a generic: not one class
    held = index.resolve(module, written)
    if held is None or index.class_def(held) is None:
        return None
    has = {m.name for m in member_definitions(index, held, _FOLLOW_EVERY_BASE)}
    has |= _certain_attributes(index, linearize(index, held, _FOLLOW_EVERY_BASE))
    return Delegation(attr, held, frozenset(m for m in has if not (refused and m.startswith(refused))))
