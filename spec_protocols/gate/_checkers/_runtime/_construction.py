"""Construction as sglang does it, read from the class at run time (in the runtime probe).

The scheduler builds a spec worker with keywords
(``Scheduler.maybe_init_draft_worker``: ``DraftWorkerClass(**draft_worker_kwargs)``),
and ``build_draft_tp_worker`` (speculative/draft_worker_common.py) builds
``draft_worker_cls`` with keywords and then *assigns* members on what it
built (``draft_worker.draft_runner = draft_model_runner``). Binding the call
is :func:`spec_protocols._verify.verify_call`'s; this module finds what
raises once the call is bound, without running the constructor:

* a store that cannot happen: ``self.X = ...`` in the ``__init__`` chain
  (the constructors that run: followed through ``super().__init__`` and
  ``Base.__init__(self, ...)``, a ``@dataclass``'s generated ``__init__``
  by its fields, then ``__post_init__``), or a member the factory assigns,
  where ``X`` is a property without a setter in the MRO, or where instances
  have no ``__dict__`` (``__slots__`` all the way down) and no slot ``X``;
* a base constructor that never runs: an sglang base class (``BaseSpecWorker``)
  whose ``__init__`` the chain never reaches, when a member the release
  calls and the class keeps from that base reads an attribute only that
  ``__init__`` sets (``graph_memory_usage`` reads
  ``self._additional_graph_memory_usage``).

Why read and not drive: driving a constructor with stand-in arguments runs
the plugin's own ``__init__`` (model loading, CUDA), whose errors say
nothing about the boundary; reading the class sees every store the source
writes, and whatever it cannot read (a C ``__init__``, a constructor that
hands ``self`` to a helper method) makes the check stand down rather than
guess. A store made through ``setattr(self, "X", ...)`` with a literal name
counts too.

Imports only the standard library and this package's member lookup: the
probe loads it before any target code runs.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from spec_protocols._member_shapes import defining_class, static_mro, type_name

__all__ = [
    "Chain",
    "ConstructionFinding",
    "blocked_store",
    "construction_findings",
    "factory_write_findings",
    "frozen",
    "init_chain",
    "kept_store_findings",
]

#: The modules whose classes are sglang's: a base constructor of theirs that
#: never runs leaves their defaults without what they read.
_SGLANG = "sglang."


@dataclass(frozen=True, slots=True)
class ConstructionFinding:
    """One way construction raises: the member concerned and what happens."""

    member: str
    message: str


@dataclass(slots=True)
class Chain:
    """What running a class's constructor does, as its source says."""

    #: Attribute -> where it is stored (``Owner.__init__``, the generated ``__init__`` of a dataclass).
    stores: dict[str, str] = field(default_factory=dict[str, str])
    #: The classes whose own ``__init__`` runs.
    ran: set[type] = field(default_factory=set[type])
    #: Whether some constructor could not be read, or hands ``self`` to code
    #: that may do more (a helper method): what it does is then not known whole.
    partial: bool = False


def blocked_store(cls: type, name: str) -> str | None:
    """Why ``instance.name = value`` raises ``AttributeError`` on ``cls``'s
    instances, in words; None when it can be set (or a custom
    ``__setattr__`` decides, which is not read)."""
    setattr_hit = defining_class(cls, "__setattr__")
    if setattr_hit is not None and setattr_hit[0] is not object:
        return None
    hit = defining_class(cls, name)
    if hit is not None:
        owner, value = hit
        kind = type(value)
        if isinstance(value, property):
            return None if value.fset is not None else f"{name} is a read-only property of {type_name(owner)} (no setter)"
        if hasattr(kind, "__set__"):
            return None  # a slot, a settable descriptor
        if hasattr(kind, "__get__") and hasattr(kind, "__delete__"):
            return f"{name} is a data descriptor of {type_name(owner)} without __set__"
    if _has_instance_dict(cls):
        return None
    slots = sorted(_slot_names(cls))
    listed = ", ".join(slots) if slots else "none"
    return f"its instances have no __dict__ (__slots__ all the way down: {listed}) and no slot {name}"


def _has_instance_dict(cls: type) -> bool:
    try:
        offset: object = type.__dict__["__dictoffset__"].__get__(cls)
    except Exception:
        return True
    return offset != 0


def _slot_names(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in static_mro(cls):
        slots: object = _namespace(klass).get("__slots__")
        if isinstance(slots, str):
            names.add(slots)
        elif isinstance(slots, Iterable):
            names.update(str(s) for s in cast("Iterable[object]", slots))
    return names


# -- the __init__ chain -----------------------------------------------------------


def init_chain(cls: type) -> Chain:
    """The stores and base constructors of ``cls(...)``, read from source."""
    chain = Chain()
    _run_init(static_mro(cls), 0, chain, set())
    return chain


def _run_init(mro: Sequence[type], start: int, chain: Chain, seen: set[int]) -> None:
    """The first ``__init__`` in ``mro[start:]`` runs (``object``'s does nothing)."""
    index = next((i for i in range(start, len(mro)) if "__init__" in _namespace(mro[i])), None)
    if index is None or mro[index] is object or index in seen:
        return
    seen.add(index)
    klass = mro[index]
    chain.ran.add(klass)
    func = _namespace(klass)["__init__"]
    if _generated_by_dataclass(klass, func):
        for name in _dataclass_stores(klass):
            chain.stores.setdefault(name, f"the __init__ that @dataclass generates for {type_name(klass)}")
        post = next((i for i, k in enumerate(mro) if "__post_init__" in _namespace(k)), None)
        if post is not None:
            _read_function(_namespace(mro[post])["__post_init__"], mro, post, chain, seen)
        return
    _read_function(func, mro, index, chain, seen)


def _namespace(klass: type) -> Mapping[str, object]:
    try:
        found: object = type.__dict__["__dict__"].__get__(klass)
    except Exception:
        return {}
    return found if isinstance(found, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]


def _generated_by_dataclass(klass: type, func: object) -> bool:
    params = _namespace(klass).get("__dataclass_params__")
    code = getattr(func, "__code__", None)
    return params is not None and getattr(params, "init", False) and getattr(code, "co_filename", "") == "<string>"


def _dataclass_stores(klass: type) -> list[str]:
    """The fields the generated ``__init__`` assigns (``self.x = x``, or
    ``object.__setattr__`` when frozen: both meet a read-only property)."""
    found: object = _namespace(klass).get("__dataclass_fields__")
    if not isinstance(found, Mapping):
        return []
    fields = cast("Mapping[str, dataclasses.Field[object]]", found)
    stores: list[str] = []
    for name, spec in fields.items():
        if getattr(spec, "_field_type", None) is not getattr(dataclasses, "_FIELD", None):
            continue  # ClassVar, InitVar: never stored
        has_default = spec.default is not dataclasses.MISSING or spec.default_factory is not dataclasses.MISSING
        if spec.init or has_default:
            stores.append(str(name))
    return stores


def _read_function(func: object, mro: Sequence[type], index: int, chain: Chain, seen: set[int]) -> None:
    """One constructor's own stores, and the base constructors it calls."""
    node = _function_node(func)
    if node is None or not node.args.args:
        chain.partial = True
        return
    owner = f"{type_name(mro[index])}.{node.name}"
    self_name = node.args.args[0].arg
    names = {klass.__name__: i for i, klass in enumerate(mro)}
    for sub in ast.walk(node):
        for target in _stored(sub, self_name):
            chain.stores.setdefault(target, owner)
        if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Attribute):
            continue
        receiver = sub.func.value
        if sub.func.attr == "__init__":
            if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
                _run_init(mro, index + 1, chain, seen)
            elif isinstance(receiver, ast.Name) and receiver.id in names:
                _run_init(mro, names[receiver.id], chain, seen)
            elif not (isinstance(receiver, ast.Name) and receiver.id == "object"):
                chain.partial = True
        elif isinstance(receiver, ast.Name) and receiver.id == self_name:
            chain.partial = True  # self.helper(...) may store or run a base constructor
        elif any(isinstance(a, ast.Name) and a.id == self_name for a in sub.args):
            chain.partial = True


def _stored(node: ast.AST, self_name: str) -> list[str]:
    """The attributes of ``self`` that ``node`` stores."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and (not isinstance(node, ast.AnnAssign) or node.value is not None):
        targets = [node.target]
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "setattr"
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == self_name
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return [node.args[1].value]
    found: list[str] = []
    while targets:
        target = targets.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
            found.append(target.attr)
    return found


def _function_node(func: object) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The parsed ``def`` of a plain function (not a wrapper's original); None when unreadable."""
    if not issubclass(type(func), types.FunctionType):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cast(types.FunctionType, func))))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _self_reads(func: object) -> set[str]:
    """The attributes of ``self`` a function (a property's getter) reads."""
    if isinstance(func, property):
        func = func.fget
    node = _function_node(func)
    if node is None or not node.args.args:
        return set()
    self_name = node.args.args[0].arg
    return {
        sub.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == self_name
        and isinstance(sub.ctx, ast.Load)
    }


# -- findings ---------------------------------------------------------------------


def construction_findings(cls: type, called: Sequence[str], call_site: str) -> list[ConstructionFinding]:
    """What raises when sglang constructs ``cls`` (at ``call_site``), or later
    because a base constructor never ran: ``called`` are the members sglang
    calls on the instance (a kept one may read what only that base sets)."""
    chain = init_chain(cls)
    found: list[ConstructionFinding] = []
    for name, where in chain.stores.items():
        why = blocked_store(cls, name)
        if why is not None:
            found.append(
                ConstructionFinding(
                    "__init__",
                    f"[construction] {where} sets self.{name}, but {why}: AttributeError when {call_site} constructs it",
                )
            )
    if not chain.partial:
        found.extend(_base_never_runs(cls, chain, called))
    found.extend(kept_store_findings(cls, called))
    return found


def _base_never_runs(cls: type, chain: Chain, called: Sequence[str]) -> list[ConstructionFinding]:
    found: list[ConstructionFinding] = []
    for base in static_mro(cls):
        if not base.__module__.startswith(_SGLANG) or base in chain.ran or "__init__" not in _namespace(base):
            continue
        base_chain = Chain()
        _read_function(_namespace(base)["__init__"], static_mro(base), 0, base_chain, set())
        unset = set(base_chain.stores) - set(chain.stores)
        for member in called:
            hit = defining_class(cls, member)
            if hit is None or hit[0] is not base:
                continue
            needed = sorted(_self_reads(hit[1]) & unset)
            if needed:
                found.append(
                    ConstructionFinding(
                        member,
                        f"[construction] {type_name(base)}.__init__ never runs (no constructor of the class calls "
                        f"it), so self.{needed[0]} is never set; the inherited {member} reads it: AttributeError "
                        "when sglang reads it",
                    )
                )
    return found


def frozen(cls: type) -> str | None:
    """Why every ``self.x = ...`` on ``cls``'s instances raises, in words: a
    frozen dataclass's or attrs class's ``__setattr__``; None otherwise."""
    hit = defining_class(cls, "__setattr__")
    if hit is None or hit[0] is object:
        return None
    owner, setter = hit
    params = _namespace(owner).get("__dataclass_params__")
    if params is not None and getattr(params, "frozen", False) is True:
        return f"{type_name(owner)} is a frozen dataclass"
    name = getattr(setter, "__name__", "")
    if isinstance(name, str) and "frozen" in name:
        return f"{type_name(owner)} is frozen (its __setattr__ is {name})"
    return None


def kept_store_findings(cls: type, called: Sequence[str]) -> list[ConstructionFinding]:
    """Members sglang calls that the class keeps from an sglang base, and
    that store on ``self`` what the class refuses (``alloc_memory_pool``
    sets ``self.req_to_token_pool``: a frozen class, a read-only property)."""
    found: list[ConstructionFinding] = []
    locked = frozen(cls)
    for member in called:
        hit = defining_class(cls, member)
        if hit is None or not type_name(hit[0]).startswith(_SGLANG):
            continue
        func: object = hit[1].fget if isinstance(hit[1], property) else hit[1]
        node = _function_node(func)
        if node is None or not node.args.args:
            continue
        stores = dict.fromkeys(t for sub in ast.walk(node) for t in _stored(sub, node.args.args[0].arg))
        for name in stores:
            why = locked or blocked_store(cls, name)
            if why is not None:
                found.append(
                    ConstructionFinding(
                        member,
                        f"[construction] the inherited {member} ({type_name(hit[0])}'s) sets self.{name}, but {why}: "
                        "it raises when sglang calls it",
                    )
                )
                break
    return found


def factory_write_findings(cls: type, writes: Sequence[str]) -> list[ConstructionFinding]:
    """Members build_draft_tp_worker assigns on the draft it built that ``cls``'s instances refuse."""
    found: list[ConstructionFinding] = []
    for name in writes:
        why = blocked_store(cls, name)
        if why is not None:
            found.append(
                ConstructionFinding(
                    name,
                    f"[construction] build_draft_tp_worker sets draft_worker.{name} on the worker it built "
                    f"(speculative/draft_worker_common.py), but {why}: AttributeError",
                )
            )
    return found
