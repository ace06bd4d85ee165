"""Construction: the keywords a plugin's spec worker is constructed with, and ``build_draft_tp_worker``'s call.

How a plugin's spec worker is constructed (the constructor keywords):

- ``Cls(**kwargs)`` where ``Cls = self.spec_algorithm.create_worker(...)``
  (0.5.8 on): ``kwargs``'s keys, the conditional ones after the others;
- else, where the algorithm keeps a registry (0.5.4.post2 to 0.5.7):
  ``self.draft_worker = self.spec_algorithm.create_draft_worker(**kwargs)``,
  a method of the algorithm object that passes ``**kwargs`` on to the factory
  its registry made of the registered class (``worker_cls(**kwargs)``).
  A key added only under a positive algorithm predicate (``if
  self.spec_algorithm.name in {"EAGLE", "EAGLE3"}:
  kwargs["enable_overlap"] = ...``) is a built-in algorithm's: a plugin's
  algorithm never meets it, and it is left out.

Neither (no registry: up to 0.5.4.post1 the scheduler constructs its own
classes by name): the contract has no constructor site, and the gate refuses
to check a worker against it
(:func:`~spec_protocols.gate._contract._terms.release_terms`).

Keywords added to the dict only under a condition are listed too (after the
others): the model has one tuple, and a worker must accept every keyword it
may be constructed with. The same holds for the draft factory,
``build_draft_tp_worker``: the keywords it passes ``draft_worker_cls``, and
what it does with what it built.
"""

from __future__ import annotations

import ast

from spec_protocols.gate._contract._extract._classify import finish
from spec_protocols.gate._contract._extract._scope import Roots, Scope
from spec_protocols.gate._contract._extract._syntax import FunctionNode, functions, own_nodes, parameters, passes_kwargs
from spec_protocols.gate._contract._extract._tree import ReleaseTree, find_class, find_function
from spec_protocols.gate._contract._extract._walker import RecordedCall, Walker
from spec_protocols.gate._contract._release_contract import Site, Use

__all__ = ["constructor", "draft_factory", "registry_methods"]


def constructor(walker: Walker) -> tuple[tuple[str, ...], Site | None]:
    """The constructor keywords and site the scheduler-side walk recorded:
    ``Cls(**kwargs)`` where ``Cls = ...create_worker(...)``, else the registry's
    ``self.draft_worker = self.spec_algorithm.<m>(**kwargs)`` (see :func:`registry_methods`)."""
    for call in walker.calls:
        func = call.node.func
        if isinstance(func, ast.Name) and call.scope.bound_to_call_of(func.id, "create_worker"):
            return _keywords_and_site(call)
    for call in walker.registry_calls:
        return _keywords_and_site(call)
    return (), None


def _keywords_and_site(call: RecordedCall) -> tuple[tuple[str, ...], Site]:
    return call.keywords + call.conditional_keywords, Site(call.scope.module.rel, call.scope.qualname, call.node.lineno)


def registry_methods(tree: ReleaseTree) -> tuple[str, ...]:
    """The methods of the algorithm object that construct a worker registered
    with the algorithm, passing on the keywords they are given.

    Such a release (0.5.4.post2 to 0.5.7) keeps a factory per algorithm:
    ``create_draft_worker(self, **factory_kwargs)`` calls it with
    ``**factory_kwargs``, and a registered class is made that factory by a
    function of the same module that wraps it, ``_factory(_, **kwargs): return
    worker_cls(**kwargs)`` (``register_speculative_algorithm(name,
    worker_cls)``). A method counts only when both are there: then what the
    scheduler passes the method is what a plugin's class is constructed with.
    """
    found = find_class(tree, "spec_info.py", "SpeculativeAlgorithm")
    if found is None:
        return ()
    module, cls = found
    if not any(_wraps_a_class(func) for func in functions(module.tree.body)):
        return ()
    return tuple(f.name for f in functions(cls.body) if f.args.kwarg is not None and _forwards_keywords(f, f.args.kwarg.arg))


def _forwards_keywords(func: FunctionNode, kwargs: str) -> bool:
    """Whether ``func`` passes its ``**kwargs`` on, whole, to a call."""
    return any(passes_kwargs(node, kwargs) for node in own_nodes(func))


def _wraps_a_class(func: FunctionNode) -> bool:
    """Whether ``func`` (a module-level function) makes a factory of a class it
    is given: a nested function that calls that parameter with its own ``**kwargs``."""
    given = set(parameters(func))
    for inner in own_nodes(func):
        if not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) or inner.args.kwarg is None:
            continue
        kwargs = inner.args.kwarg.arg
        for node in own_nodes(inner):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in given and passes_kwargs(node, kwargs):
                return True
    return False


def draft_factory(tree: ReleaseTree) -> tuple[tuple[str, ...] | None, Site | None, tuple[Use, ...]]:
    """``build_draft_tp_worker``: the keywords it passes ``draft_worker_cls``
    (None without that parameter), where, and what it does with what it built."""
    found = find_function(tree, "draft_worker_common.py", "build_draft_tp_worker")
    if found is None:
        return None, None, ()
    module, func = found
    injected = "draft_worker_cls" in parameters(func)
    walker = Walker(tree)
    if injected:
        walker.want("name", "draft_worker_cls")
    else:
        # No injection point (0.5.18): the built object is the worker class it
        # constructs itself, a CamelCase call ending in "Worker".
        built_here = sorted(
            (node.lineno, node.func.id)
            for node in own_nodes(func)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith("Worker")
        )
        if built_here:
            walker.want("class", built_here[0][1])
    walker.walk_function(Scope(module, None, func, func.name, Roots()))
    if not walker.calls:
        return None, None, ()
    call = walker.calls[0]
    built: tuple[Use, ...] = ()
    if call.bound_to is not None:
        use_walker = Walker(tree)
        use_scope = Scope(module, None, func, func.name, Roots(params={call.bound_to: "built_draft"}, nested=False))
        use_walker.walk_function(use_scope)
        built = tuple(u for u in finish(use_walker.raw) if u.receiver == "built_draft")
    if not injected:
        return None, None, built
    return call.keywords + call.conditional_keywords, Site(module.rel, func.name, call.node.lineno), built
