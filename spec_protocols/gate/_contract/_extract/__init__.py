"""Read one sglang release's contract from its own source (``ast`` only, never imported).

:func:`extract_contract` walks the scheduler side of a release
(``sglang/srt/managers/`` and ``sglang/srt/disaggregation/``) and records
every read, call and write of a member of the scheduler's speculative worker,
then reads ``BaseSpecWorker``'s defaults, the constructor call,
``build_draft_tp_worker`` and the built-in workers. Nothing is anchored on a
line number or a release: call sites are found by what they do.

The rooms, each holding the rules it applies:

``_tree``          the release's modules, located and parsed once through
                   :mod:`spec_protocols.gate._source`; finding a class or function by name
``_algorithms``    what each predicate of ``SpeculativeAlgorithm`` means, read
                   from the enum's body
``_scope``         one function being walked (its bindings, its imports) and
                   the roots of the walk
``_receivers``     which expressions are the spec worker
``_facts``         what holds where a use runs (conditions taken apart)
``_kwargs``        call shapes and the keys of ``**kwargs`` dicts
``_resolve``       what a call names in the release
``_follow``        following a receiver into the callee it is passed to
``_walker``        the flow walker, composed of the four parts above
``_classify``      each use's classification, validations, the order of uses
``_scheduler``     reader: the scheduler side
``_defaults``      reader: ``BaseSpecWorker``'s defaults
``_construction``  reader: the constructor keywords and the draft factory
``_built_in``      reader: the workers ``create_worker`` returns
``_hooks``         reader: the members found with ``getattr``/``hasattr``, and
                   what sglang does with each (followed through locals and callees)
``_loops``         reader: the scheduler functions only one branch of the event
                   loop runs (``_apply_war_barrier``: the overlap loops only)
``_overlap``       reader: the registration flag that selects the scheduler's
                   overlap branch (``supports_overlap``)
``_algorithm_object`` reader: what sglang calls on the algorithm object
                   (``spec_algorithm``) and what ``CustomSpecAlgo`` defines
"""

from __future__ import annotations

from dataclasses import replace

from spec_protocols._releases import NEWEST, OLDEST, OLDEST_READABLE
from spec_protocols.gate._contract._extract._algorithm_object import algorithm_object
from spec_protocols.gate._contract._extract._built_in import built_in_workers
from spec_protocols.gate._contract._extract._classify import finish
from spec_protocols.gate._contract._extract._constructor_calls import constructor, draft_factory, registry_methods
from spec_protocols.gate._contract._extract._defaults import defaults
from spec_protocols.gate._contract._extract._hooks import ValueFlow, hooks
from spec_protocols.gate._contract._extract._loops import SchedulerPaths, scheduler_paths
from spec_protocols.gate._contract._extract._overlap import overlap_flag, overlap_flag_default
from spec_protocols.gate._contract._extract._scheduler import walk_scheduler_side
from spec_protocols.gate._contract._extract._tree import ReleaseTree
from spec_protocols.gate._contract._extract._walker import Walker
from spec_protocols.gate._contract._release_contract import Contract, HookUse, Site, Use, fewest_flags
from spec_protocols.gate._contract._release_source import SglangSource
from spec_protocols.gate._model import GateError

__all__ = ["extract_contract"]


def extract_contract(source: SglangSource) -> Contract:
    """The contract of ``source``'s release, read from its own files."""
    tree = ReleaseTree(source.root)
    if not tree.srt.is_dir():
        raise GateError(f"{source.root} holds no sglang/srt: not an sglang source tree")
    walker = Walker(tree)
    walker.want("create_worker", "")
    for method in registry_methods(tree):
        walker.want("registry", method)
    walk_scheduler_side(tree, walker)
    uses = _with_value_uses(finish(walker.raw), tree, walker)
    spec_worker = _on_their_loops(uses, scheduler_paths(tree, {u.site.function.rpartition(".")[2] for u in uses}))
    if not spec_worker:
        raise GateError(
            f"found no use of the spec worker in {tree.srt}/managers: not an sglang release with speculative "
            f"workers? supported: {OLDEST} to {NEWEST}, the oldest release the gate can read: {OLDEST_READABLE}"
        )
    constructor_keywords, constructor_site = constructor(walker)
    factory_keywords, factory_site, built = draft_factory(tree)
    flag = overlap_flag(tree)
    return Contract(
        release=source.release,
        source=str(source.root),
        spec_worker=spec_worker,
        defaults=defaults(tree),
        constructor_keywords=constructor_keywords,
        constructor_site=constructor_site,
        draft_factory_keywords=factory_keywords,
        draft_factory_site=factory_site,
        built_draft=built,
        built_in_workers=built_in_workers(tree),
        hooks=hooks(tree, walker.lookups),
        overlap_flag=flag,
        overlap_flag_default=overlap_flag_default(tree, flag) if flag is not None else False,
        algorithm=algorithm_object(tree),
    )


def _with_value_uses(uses: tuple[Use, ...], tree: ReleaseTree, walker: Walker) -> tuple[Use, ...]:
    """``uses``, each with what sglang does with its value (:attr:`Use.value_uses`)."""
    flow = ValueFlow(tree)
    followed: dict[tuple[Site, str, str, str], list[HookUse]] = {}
    for key, node, scope in walker.values:
        followed.setdefault(key, []).extend(flow.value_uses(node, scope))
    return tuple(
        replace(use, value_uses=tuple(dict.fromkeys(found)))
        if (found := followed.get((use.site, use.member, use.receiver, use.kind)))
        else use
        for use in uses
    )


def _on_their_loops(uses: tuple[Use, ...], paths: SchedulerPaths) -> tuple[Use, ...]:
    """``uses``, each made in a function only one event-loop branch runs
    tagged with that branch, and with who never runs its function and the
    server flags every path to it passes behind."""
    found: list[Use] = []
    for use in uses:
        name = use.site.function.rpartition(".")[2]
        branch = use.branch or paths.branch.get(name, "")
        skipped_by = tuple(sorted({*use.skipped_by, *paths.skipped_by.get(name, frozenset())}))
        flags = fewest_flags({*use.flags, *paths.flags.get(name, frozenset())})
        found.append(replace(use, branch=branch, skipped_by=skipped_by, flags=flags))
    return tuple(found)
