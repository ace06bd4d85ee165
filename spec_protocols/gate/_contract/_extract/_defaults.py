"""BaseSpecWorker's defaults: what each concrete method of the base needs of the worker that keeps it.

For each method of ``BaseSpecWorker`` that is not abstract: what it does with
the draft and target workers (uses with receiver ``draft_worker`` /
``target_worker``), each ``self.<name>`` it reads that is not a member of the
base (with where the base provides it: a class attribute, an assignment in
one of its methods, or nowhere: a subclass that keeps the default must set
it), the members of the base it relies on (in source order), and which of
those it reaches only under an algorithm predicate (a plugin's algorithm
never takes that branch) or only behind a server flag (``_build_hicache_draft_plan``
calls ``_draft_model_runners`` only with hierarchical caching, the unified
cache's external linker or the host-pool retraction backup on).
"""

from __future__ import annotations

import ast

from spec_protocols.gate._contract._extract._classify import finish, use_order
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import FunctionNode, decorated, functions, own_nodes, self_attribute
from spec_protocols.gate._contract._extract._tree import Module, ReleaseTree, find_class
from spec_protocols.gate._contract._extract._walker import Walker
from spec_protocols.gate._contract._release_contract import Classification, DefaultNeeds, ServerFlag, Site, Use
from spec_protocols.gate._source import assigned

__all__ = ["defaults"]

_WORKERS = ("draft_worker", "target_worker")
_WORKER_ROOTS = Roots(self_attrs={name: name for name in _WORKERS}, nested=False)
_NEVER_ASSIGNED = "never assigned by BaseSpecWorker: a subclass that keeps this default must set it"


def defaults(tree: ReleaseTree) -> tuple[DefaultNeeds, ...]:
    """What each default of the release's ``BaseSpecWorker`` needs, in source order."""
    found = find_class(tree, "base_spec_worker.py", "BaseSpecWorker")
    if found is None:
        return ()
    module, cls = found
    methods = [f for f in functions(cls.body) if not decorated(f, "abstractmethod")]
    members = {f.name for f in functions(cls.body)}
    provided = _provided(cls, methods)
    by_method: dict[str, list[Use]] = {}
    relies: dict[str, list[str]] = {}
    reached: dict[str, dict[str, set[Classification]]] = {}
    flagged: dict[str, dict[str, frozenset[ServerFlag]]] = {}
    order: dict[str, int] = {}
    for func in methods:
        order.setdefault(func.name, func.lineno)
        needs = by_method.setdefault(func.name, [])
        needs.extend(_worker_uses(tree, module, cls, func))
        relied, reads = _self_reads(module, cls, func, members, provided)
        needs.extend(reads)
        known = relies.setdefault(func.name, [])  # a property's setter adds to its getter
        known.extend(n for n in sorted(relied, key=relied.__getitem__) if n not in known)
        # How it reaches each default it relies on (a property's getter and
        # setter together): a plugin's algorithm never takes a branch that only
        # an algorithm predicate opens.
        how = reached.setdefault(func.name, {})
        behind = flagged.setdefault(func.name, {})
        for name, uses in _reached_on(tree, module, cls, func).items():
            if name in relied:
                how.setdefault(name, set()).update(u.classification for u in uses)
                flags = frozenset(uses[0].flags)
                for use in uses[1:]:
                    flags &= frozenset(use.flags)
                behind[name] = behind[name] & flags if name in behind else flags
    return tuple(
        DefaultNeeds(
            method=name,
            needs=tuple(sorted(dict.fromkeys(by_method[name]), key=use_order)),
            relies_on=tuple(relies[name]),
            relies_on_algorithm=tuple(r for r in relies[name] if reached[name].get(r) == {"algorithm"}),
            relies_on_flags=tuple(
                (r, tuple(sorted(flagged[name][r]))) for r in relies[name] if flagged[name].get(r)
            ),
        )
        for name in sorted(by_method, key=lambda n: order[n])
    )


def _provided(cls: ast.ClassDef, methods: list[FunctionNode]) -> dict[str, str]:
    """State the base itself provides, and how: class attributes and ``self.x`` assignments."""
    provided: dict[str, str] = {}
    for node in cls.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    provided[target.id] = "a class attribute of BaseSpecWorker"
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            provided[node.target.id] = "a class attribute of BaseSpecWorker"
    for func in methods:
        for inner in own_nodes(func):
            for target in assigned(inner):
                attr = self_attribute(target)
                if attr is not None:
                    provided.setdefault(attr, f"set by BaseSpecWorker.{func.name}")
    return provided


def _worker_uses(tree: ReleaseTree, module: Module, cls: ast.ClassDef, func: FunctionNode) -> list[Use]:
    """What ``func`` does with the draft and target workers."""
    walker = Walker(tree)
    walker.walk_function(Scope(module, cls, func, f"{cls.name}.{func.name}", _WORKER_ROOTS))
    return [u for u in finish(walker.raw) if u.receiver in _WORKERS]


def _self_reads(
    module: Module, cls: ast.ClassDef, func: FunctionNode, members: set[str], provided: dict[str, str]
) -> tuple[dict[str, tuple[int, int]], list[Use]]:
    """The members of the base ``func`` relies on (each at its first use), and
    a need for each other ``self.<name>`` it reads."""
    relied: dict[str, tuple[int, int]] = {}
    reads: list[Use] = []
    for read in own_nodes(func):
        name = self_attribute(read)
        if name is None or not isinstance(read, ast.Attribute):
            continue
        if name in members:
            if name != func.name:
                at = (read.lineno, read.col_offset)
                relied[name] = min(relied.get(name, at), at)
        elif isinstance(read.ctx, ast.Load):
            classification: Classification = "private" if name.startswith("_") else "required"
            reads.append(
                Use(
                    member=name,
                    receiver="self",
                    kind="read",
                    classification=classification,
                    site=Site(module.rel, f"{cls.name}.{func.name}", read.lineno),
                    reason=provided.get(name, _NEVER_ASSIGNED),
                )
            )
    return relied, reads


def _reached_on(tree: ReleaseTree, module: Module, cls: ast.ClassDef, func: FunctionNode) -> dict[str, list[Use]]:
    """How ``func`` reaches each ``self.<name>`` it reads or calls: those
    uses, with ``self`` as the receiver (their classifications, and the
    server flags they sit behind).

    A walker of its own, so that the defaults' needs above are read exactly
    as before. A name it does not record (a use the walker drops) is absent:
    the caller then follows it, which may over-approximate, never miss.
    """
    qualname = f"{cls.name}.{func.name}"
    walker = Walker(tree)
    walker.walk_function(Scope(module, cls, func, qualname, Roots(params={"self": "self"}, nested=False)))
    found: dict[str, list[Use]] = {}
    for use in finish(walker.raw):
        if use.receiver == "self" and use.site.file == module.rel and use.site.function == qualname:
            found.setdefault(use.member, []).append(use)
    return found
