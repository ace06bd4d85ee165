"""Static discovery: which classes and injection sites to check, from source only.

Nothing here imports a target (see :mod:`spec_protocols.gate._discovery._targets` for how
targets are located and :mod:`spec_protocols.gate._discovery._source_index` for how their
source is read). A class is picked when

* it subclasses (directly or not) sglang's ``BaseSpecWorker`` or
  ``spec_protocols.SpecWorkerBase``: checked against ``SpecWorker`` (and, when
  it is not an intentional base, its constructor against ``SpecWorkerFactory``);
* it subclasses ``EagleDraftWorkerBase`` or ``TpModelWorker``: ``DraftWorker``;
* it subclasses the ``SpecWorker`` or ``DraftWorker`` protocol itself
  (``class W(spec_protocols.SpecWorker)``): a worker of that role, whose
  members the protocol's stub bodies do not implement;
* a registration hands it to the scheduler
  (:mod:`spec_protocols.gate._discovery._registrations`): ``SpecWorker``,
  whatever its bases, and it must be concrete;
* it is a registration's algorithm object: its ``spec_class``, or sglang's
  ``CustomSpecAlgo`` when it passes none: ``SpecAlgorithm`` (the scheduler
  calls it; its registered factories are held to ``create_worker``'s call);
* it is decorated with ``spec_protocols.spec_worker_class`` (``SpecWorker``,
  and it must be concrete) or ``draft_worker_class`` (an injected draft
  worker), whatever its bases
  (:mod:`spec_protocols.gate._discovery._decorated`);
* a plain reference to it is injected as ``draft_worker_cls`` (or
  ``self.attr``, where every value the class gives ``attr`` is one):
  ``DraftWorkerFactory`` (and ``DraftWorker``, since what the factory builds
  must be one). Where an injection cannot be followed, every
  ``TpModelWorker`` subclass its module defines or imports may be what it
  injects (a declared ``type[TpModelWorker]`` lets any of them through), so
  each is held to the factory call too.

Any other expression injected as ``draft_worker_cls`` (``self.attr``, a
``functools.partial``, a factory function, a lambda, a class defined in a
function, a conditional expression) is an :class:`InjectionSite`: discovery
does not try to understand it; the static checkers judge it in place
(:mod:`spec_protocols.gate._harness._sites`). Where injections are found:
:mod:`spec_protocols.gate._discovery._injections`.

:func:`discover` runs in named steps: parse the targets, pick the classes
(by their bases, or named as ``module:Class``) and the injections of each
module, narrow to the named classes, describe each picked class (its bases,
members, overrides, the modules the checkers must read from source), and
refuse a run that depends on a file that cannot be parsed or finds nothing.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from spec_protocols.gate._discovery._built import builds_classes
from spec_protocols.gate._discovery._delegation import delegation, instance_attributes
from spec_protocols.gate._discovery._decorated import DECORATOR_ROOTS, decorated_roles, own_decorator_lines
from spec_protocols.gate._discovery._injections import (
    attribute_classes,
    classify_injection,
    injections,
    may_inject,
    number_sites,
)
from spec_protocols.gate._discovery._member_definitions import member_definitions
from spec_protocols.gate._discovery._registrations import registrations
from spec_protocols.gate._discovery._source_index import ModuleSource, SourceIndex, SourceReads
from spec_protocols.gate._model import (
    ClassRole,
    DiscoveredClass,
    Discovery,
    GateError,
    InjectionSite,
    ProtocolName,
    Registration,
    ResolvedTarget,
)
from spec_protocols.gate._paths import in_installation, search_path
from spec_protocols.gate._source import absolute_module, dotted_name, statements

__all__ = ["DRAFT_ROOTS", "PROTOCOL_ROOTS", "SPEC_ROOTS", "discover"]


def _protocol_classes(name: ProtocolName) -> frozenset[str]:
    """A protocol class of this package, where it is defined and as it is
    exported (the name the index ends on when it cannot read the package)."""
    return frozenset({f"spec_protocols._protocols.{name}", f"spec_protocols.{name}"})


#: The protocol classes whose explicit subclasses are workers of their role.
#: Their members' bodies are stubs (``...``): what a subclass inherits from
#: them is no implementation (mypy and pyright call such a class abstract).
PROTOCOL_ROOTS: frozenset[str] = (
    _protocol_classes(ProtocolName.SPEC_WORKER)
    | _protocol_classes(ProtocolName.DRAFT_WORKER)
    | _protocol_classes(ProtocolName.INJECTABLE_DRAFT_WORKER)
)
#: Fully qualified names of the classes whose subclasses are spec workers.
SPEC_ROOTS: frozenset[str] = frozenset(
    {
        "sglang.srt.speculative.base_spec_worker.BaseSpecWorker",
        "spec_protocols._base.SpecWorkerBase",
    }
) | _protocol_classes(ProtocolName.SPEC_WORKER)
#: ... and draft workers. The roots themselves are bases, not workers, except
#: TpModelWorker, which sglang uses as a draft worker as it is (DFlash, DSpark);
#: it is picked up where it is injected (build_draft_tp_worker's default).
DRAFT_ROOTS: frozenset[str] = frozenset(
    {
        "sglang.srt.speculative.base_spec_worker.EagleDraftWorkerBase",
        "sglang.srt.managers.tp_worker.TpModelWorker",
    }
) | _protocol_classes(ProtocolName.DRAFT_WORKER) | _protocol_classes(ProtocolName.INJECTABLE_DRAFT_WORKER)
#: The draft root whose subclasses ``build_draft_tp_worker`` can be given
#: (its ``draft_worker_cls: type[TpModelWorker]``).
_INJECTABLE_ROOT = "sglang.srt.managers.tp_worker.TpModelWorker"
_ROOTS = SPEC_ROOTS | DRAFT_ROOTS
_ABSTRACT_DECORATORS = frozenset(
    {"abc.abstractmethod", "abc.abstractproperty", "abc.abstractclassmethod", "abc.abstractstaticmethod"}
)
_ABC_BASES = frozenset({"abc.ABC"})
_ABC_METACLASSES = frozenset({"abc.ABCMeta"})


@dataclass(slots=True)
class _Picks:
    """What the targets' modules offer for checking, gathered module by module."""

    #: Qualified class name -> its roles.
    roles: dict[str, set[ClassRole]] = field(default_factory=dict[str, set[ClassRole]])
    #: Qualified class name -> where it is injected (``file:line``).
    injected_at: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    sites: list[InjectionSite] = field(default_factory=list[InjectionSite])
    notes: list[str] = field(default_factory=list[str])
    #: For each site: the classes it may give build_draft_tp_worker as they are
    #: (``None``: any its module can name; see :func:`may_inject`).
    reaches: list[tuple[InjectionSite, tuple[str, ...] | None]] = field(
        default_factory=list[tuple[InjectionSite, "tuple[str, ...] | None"]]
    )
    #: Qualified class name -> the registrations that hand it to the scheduler.
    registered: dict[str, list[Registration]] = field(default_factory=dict[str, list[Registration]])
    #: Classes a decorator of this package marks as what sglang constructs.
    decorated: set[str] = field(default_factory=set[str])
    #: Qualified class name -> the classes whose own code injects it.
    injected_by: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    #: Qualified class name -> its bases imported from an sglang module the
    #: sglang read does not have (``SourceIndex.missing_sglang_bases``).
    missing_bases: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict[str, tuple[tuple[str, str], ...]])

    def add(self, qualified: str, *roles: ClassRole) -> None:
        self.roles.setdefault(qualified, set()).update(roles)


def discover(
    targets: Sequence[ResolvedTarget],
    extra_roots: Sequence[Path] = (),
    *,
    read: SourceReads | None = None,
    built_in: Collection[str] = (),
) -> Discovery:
    """Find the classes and injection sites to check in ``targets``.

    ``extra_roots`` are searched first (``--sglang``'s source: the sglang
    base classes are read from there), and passed on to the checkers.
    ``built_in``: the dotted names of the classes the release's
    ``SpeculativeAlgorithm.create_worker`` returns (``ReleaseTerms.built_in``):
    each is a spec worker wherever the targets define it, whatever its bases
    (a V1 ``EAGLEWorker`` derives from ``TpModelWorker``; ``NGRAMWorker``
    from nothing in some releases).
    ``read``, when given, receives the name of every module discovery looked
    for (found or not) and each file it parsed, with the digest of what it
    parsed, on success or failure: the verdict cache keys a stored discovery
    on them.

    Raises GateError when there is nothing to check, or when a checked class
    depends on a target file that cannot be parsed.
    """
    roots = [*extra_roots, *(t.search_root for t in targets)]
    index = SourceIndex(search_path(roots), _ROOTS | DECORATOR_ROOTS)
    try:
        return _discover(targets, roots, index, frozenset(built_in))
    finally:
        if read is not None:
            index.record(read)


def _discover(targets: Sequence[ResolvedTarget], roots: Sequence[Path], index: SourceIndex, built_in: frozenset[str]) -> Discovery:
    target_modules = _parse_targets(targets, index)
    wanted = _named_classes(targets)
    picks = _Picks(notes=[note for t in targets for note in t.notes])
    for module in target_modules.values():
        _pick_classes(index, module, wanted, picks, built_in)
        picks.notes.extend(_unreachable_notes(module))
        _pick_injections(index, module, picks)
        _pick_registrations(index, module, target_modules, picks)
    _hold_injectable(index, picks)
    _require_named_classes(wanted, target_modules)
    if wanted and len(wanted) == len(targets):
        # With only module:Class targets, report just those classes.
        keep = {f"{m}.{c}" for m, c in wanted}
        picks.roles = {k: v for k, v in picks.roles.items() if k in keep}
        picks.sites = []
    sites = number_sites(picks.sites)
    classes, source_modules = _describe_classes(index, picks)
    for site in sites:
        source_modules[site.module] = site.file
    _require_parsed_dependencies(index, target_modules, source_modules)
    notes = [*picks.notes, *(index.unparsed[name] for name in sorted(index.unparsed))]
    # Modules whose classes only an import makes: the runtime checker lists
    # their workers (a module:Class target names its class; none is asked for).
    built = () if wanted else tuple(name for name, module in target_modules.items() if _may_build(index, module, classes))
    if not classes and not sites and not built:
        specs = ", ".join(t.spec for t in targets)
        raise GateError(
            f"no workers found in {specs}: no subclass of BaseSpecWorker, SpecWorkerBase, "
            "EagleDraftWorkerBase, TpModelWorker or the SpecWorker/DraftWorker protocols, no class "
            "registered with SpeculativeAlgorithm.register or decorated with spec_worker_class or "
            "draft_worker_class, and no draft_worker_cls injection"
        )
    found = _discovery(roots, index, classes, source_modules, sites, notes)
    return replace(found, runtime_built=built) if built else found


def _may_build(index: SourceIndex, module: ModuleSource, classes: Sequence[DiscoveredClass]) -> bool:
    """Whether ``module``'s import may make workers no class statement shows:
    it makes classes by a call (:func:`builds_classes`), or it names a
    worker root (imports ``BaseSpecWorker``, ``TpModelWorker``, a protocol...)
    yet no class of its own was picked (a ``type(...)`` spelled some other
    way, a factory imported from elsewhere). The runtime checker imports it
    and lists what it made; where it made nothing, nothing is reported."""
    if builds_classes(module):
        return True
    if any(c.module == module.name for c in classes):
        return False
    return any(index.resolve(module, local) in _ROOTS for local in module.imports)


def _named_classes(targets: Sequence[ResolvedTarget]) -> set[tuple[str, str]]:
    """The (module, class) pairs named as ``module:Class``; such a target has one module."""
    return {(next(iter(t.modules)), t.class_name) for t in targets if t.class_name and t.modules}


def _discovery(
    roots: Sequence[Path],
    index: SourceIndex,
    classes: list[DiscoveredClass],
    source_modules: Mapping[str, Path],
    sites: list[InjectionSite],
    notes: list[str],
) -> Discovery:
    """The stage's output: the standard library's modules are never read from
    source by the checkers, and an installation folder is never a search root."""
    # A root that is an installed site-packages needs no adding (the checkers
    # search it anyway), and adding it would let pyright read every package in it.
    extra = [r for r in roots if not in_installation(r)]
    read = {m: f for m, f in source_modules.items() if m.partition(".")[0] not in sys.stdlib_module_names}
    imported = frozenset(n for names in imported_modules(read, index).values() for n in names)
    return Discovery(
        tuple(classes),
        read,
        tuple(dict.fromkeys(extra)),
        sites=tuple(sites),
        notes=tuple(dict.fromkeys(notes)),
        imported_modules=imported,
    )


def _parse_targets(targets: Sequence[ResolvedTarget], index: SourceIndex) -> dict[str, ModuleSource]:
    """Every module of the targets, parsed. A target of one file must parse;
    a file that is merely part of a package or folder becomes a note when it
    does not."""
    target_modules: dict[str, ModuleSource] = {}
    for target in targets:
        strict = len(target.modules) == 1
        for name, file in target.modules.items():
            if name in target_modules:
                continue
            module = index.add(name, file, strict=strict)
            if module is not None:
                target_modules[name] = module
    return target_modules


def _pick_classes(
    index: SourceIndex, module: ModuleSource, wanted: set[tuple[str, str]], picks: _Picks, built_in: frozenset[str]
) -> None:
    """The classes of ``module`` on a known base or decorated as a worker,
    with their roles, those named as ``module:Class``, and the release's
    built-in workers (spec workers: the scheduler builds and drives them)."""
    for qual in module.classes:
        qualified = f"{module.name}.{qual}"
        if qualified in _ROOTS:
            continue
        chain = index.ancestry(qualified)
        roles: set[ClassRole] = set()
        if any(b in SPEC_ROOTS for b in chain) or qualified in built_in or _extends_built_in(qualified, chain, built_in):
            roles.add(ClassRole.SPEC_WORKER)
        if any(b in DRAFT_ROOTS for b in chain):
            roles.add(ClassRole.DRAFT_WORKER)
        decorated = decorated_roles(index, module, module.classes[qual].node)
        if decorated:
            # The author says sglang constructs it (spec_protocols._class_decorators).
            roles.update(decorated)
            picks.decorated.add(qualified)
        missing = index.missing_sglang_bases(qualified)
        if missing:
            # A base the sglang checked against does not have (a V1 worker on
            # a release without one): the class cannot be imported there,
            # which its verdict says; its role is unknown, so a spec worker's.
            picks.missing_bases[qualified] = missing
        if ((module.name, qual) in wanted or missing) and not roles:
            # Named explicitly but on no known base: structural typing is
            # the point of a protocol, so check it as a spec worker.
            roles.add(ClassRole.SPEC_WORKER)
        if roles:
            picks.add(qualified, *roles)


def _extends_built_in(qualified: str, chain: Sequence[str], built_in: frozenset[str]) -> bool:
    """Whether a plugin's class extends one of the release's built-in workers:
    it is meant as what that class is, a spec worker (a plugin on 0.5.10's V1
    ``EAGLEWorker``). sglang's own classes are what its ``create_worker``
    makes of them: 0.5.12's ``FrozenKVMTPWorkerV2`` extends ``EAGLEWorkerV2``
    and is a draft worker there."""
    return not qualified.startswith("sglang.") and any(b in built_in for b in chain)


def _unreachable_notes(module: ModuleSource) -> Iterator[str]:
    """A note for each class of ``module`` defined only in a branch that is false on this interpreter."""
    for unreachable in module.unreachable:
        yield (
            f"{module.name}.{unreachable.qualname} ({module.file}:{unreachable.line}) is defined only when "
            f"{unreachable.condition}, which is false on Python {sys.version_info.major}.{sys.version_info.minor} "
            f"({sys.platform}): not checked"
        )


def _pick_injections(index: SourceIndex, module: ModuleSource, picks: _Picks) -> None:
    """The classes ``module`` injects as ``draft_worker_cls``, and the sites of every other injection."""
    for injection in injections(module):
        site_or_class = classify_injection(index, injection)
        followed, complete = attribute_classes(index, injection)
        injector = _scope_class(module, injection.scope)
        for qualified in (site_or_class,) if isinstance(site_or_class, str) else followed:
            picks.add(qualified, ClassRole.INJECTED, ClassRole.DRAFT_WORKER)
            picks.injected_at.setdefault(qualified, []).append(f"{module.file}:{injection.value.lineno}")
            if injector is not None:
                picks.injected_by.setdefault(qualified, []).append(injector)
        if isinstance(site_or_class, InjectionSite) and not complete:
            picks.sites.append(site_or_class)
            picks.reaches.append((site_or_class, may_inject(index, injection)))


def _scope_class(module: ModuleSource, scope: str) -> str | None:
    """The qualified name of the innermost class of ``module`` whose body
    holds ``scope`` (``Worker.__init__`` -> ``module.Worker``); None at module level or in a plain function."""
    parts = scope.split(".")
    for end in range(len(parts), 0, -1):
        qual = ".".join(parts[:end])
        if qual in module.classes:
            return f"{module.name}.{qual}"
    return None


def _pick_registrations(
    index: SourceIndex, module: ModuleSource, target_modules: Mapping[str, ModuleSource], picks: _Picks
) -> None:
    """The classes ``module``'s registrations hand the scheduler, defined in
    the targets: spec workers, whatever their bases (the scheduler builds
    them and drives them as one)."""
    for registered in registrations(index, module):
        for qualified in registered.classes:
            found = index.class_def(qualified)
            if found is None or found[0].name not in target_modules:
                continue
            picks.add(qualified, ClassRole.SPEC_WORKER)
            picks.registered.setdefault(qualified, []).append(registered.registration)
        # The algorithm object the registration makes, wherever its class is
        # defined: sglang's CustomSpecAlgo for a registration without a
        # spec_class is checked too, since that is what the scheduler calls.
        algorithm = registered.registration.algorithm
        if algorithm and index.class_def(algorithm) is not None:
            picks.add(algorithm, ClassRole.ALGORITHM)
            picks.registered.setdefault(algorithm, []).append(registered.registration)


def _hold_injectable(index: SourceIndex, picks: _Picks) -> None:
    """Where an injection cannot be followed, what it injects may be any
    ``TpModelWorker`` subclass its module can name (defines or imports): a
    declared ``type[TpModelWorker]`` (``build_draft_tp_worker``'s own
    annotation) admits each whatever its ``__init__`` takes; a helper it
    calls, the classes its returns name; a wrapper (a lambda, a partial, a
    factory function), none as it is. Each concrete one the targets define
    is held to the factory call."""
    reachable: dict[str, list[str]] = {}
    for site, reaches in picks.reaches:
        module = index.get(site.module)
        if module is None:
            continue
        if reaches is None:
            named = [f"{module.name}.{q}" for q in module.classes]
            named += [r for r in (index.resolve(module, local) for local in module.imports) if r is not None]
        else:
            named = list(reaches)
        for qualified in named:
            reachable.setdefault(qualified, []).append(f"{site.file}:{site.line}")
    subclassed = {base for qualified in picks.roles for base in index.ancestry(qualified)}
    for qualified, roles in list(picks.roles.items()):
        if qualified not in reachable or ClassRole.INJECTED in roles or qualified in subclassed:
            continue
        found = index.class_def(qualified)
        if found is None or _INJECTABLE_ROOT not in index.ancestry(qualified):
            continue
        if _declares_abstract(index, found[0], found[1].node):
            continue
        picks.add(qualified, ClassRole.INJECTED)
        picks.injected_at.setdefault(qualified, []).extend(reachable[qualified])


def _require_named_classes(wanted: set[tuple[str, str]], target_modules: Mapping[str, ModuleSource]) -> None:
    """A ``module:Class`` target names a class its module defines."""
    for module_name, class_name in wanted:
        module = target_modules[module_name]
        if class_name not in module.classes:
            what = "defines no class" if class_name not in module.imports else "imports it but does not define a class"
            raise GateError(f"{module_name}:{class_name}: {module_name} {what} named {class_name!r}")


def _describe_classes(index: SourceIndex, picks: _Picks) -> tuple[list[DiscoveredClass], dict[str, Path]]:
    """Each picked class as discovery reports it, and the modules the checkers must read from source."""
    classes: list[DiscoveredClass] = []
    source_modules: dict[str, Path] = {}
    subclassed = {base for qualified in picks.roles for base in index.ancestry(qualified)}
    for qualified, roles in sorted(picks.roles.items()):
        found = index.class_def(qualified)
        if found is None:
            continue
        module, info = found
        trail: list[str] = []
        chain = index.ancestry(qualified, trail)
        classes.append(
            DiscoveredClass(
                module=module.name,
                qualname=info.qualname,
                file=module.file,
                line=info.node.lineno,
                roles=frozenset(roles),
                bases=chain,
                injection_sites=tuple(picks.injected_at.get(qualified, ())),
                # A class a registration hands the scheduler is built by it,
                # whatever its bases say ("abstract on purpose" is for classes
                # nothing the plugin writes instantiates); so is a class a
                # decorator of this package marks as one sglang constructs.
                may_be_abstract=qualified not in picks.registered
                and qualified not in picks.decorated
                and (qualified in subclassed or _declares_abstract(index, module, info.node)),
                overrides=_overrides(index, qualified),
                members=member_definitions(index, qualified, _ROOTS),
                registrations=tuple(dict.fromkeys(picks.registered.get(qualified, ()))),
                injected_by=tuple(dict.fromkeys(b for b in picks.injected_by.get(qualified, ()) if b != qualified)),
                own_decorator_lines=own_decorator_lines(index, module, info.node),
                missing_bases=picks.missing_bases.get(qualified, ()),
                instance_attributes=instance_attributes(index, qualified, _ROOTS),
                delegation=delegation(index, qualified, _ROOTS),
            )
        )
        # The checkers must read, from source, the module of the class, of
        # every base up to the roots, and every module a base was re-exported
        # or star-imported through (stubs never shadow code under test, and a
        # module mypy skips turns what it exports into Any).
        for name in (qualified, *chain):
            defined = index.class_def(name)
            if defined is not None:
                source_modules[defined[0].name] = defined[0].file
        for name in trail:
            through = index.get(name)
            if through is not None:
                source_modules[through.name] = through.file
    return classes, source_modules


def _overrides(index: SourceIndex, qualified: str) -> frozenset[str] | None:
    """The names a class and its bases below the roots define; ``None`` when a
    base is neither a class the index read, a root, nor a standard-library or
    ``typing_extensions`` class (``ABC``, ``Generic[T]``), whose names are
    none of a worker's members."""
    names: set[str] = set()
    for name in (qualified, *index.ancestry(qualified)):
        if name in _ROOTS:
            continue
        found = index.class_def(name)
        if found is None:
            return None
        module, info = found
        for base in info.node.bases:
            expr = base.value if isinstance(base, ast.Subscript) else base
            dotted = dotted_name(expr)
            if dotted is None:
                return None
            if dotted == "object" or index.resolve(module, dotted) is not None:
                continue
            head, _, rest = dotted.partition(".")
            full = module.imports[head] + (f".{rest}" if rest else "") if head in module.imports else dotted
            top = full.partition(".")[0]
            if top not in sys.stdlib_module_names and top != "typing_extensions":
                return None
        names.update(_body_names(info.node.body))
    return frozenset(names)


def _body_names(body: Iterable[ast.stmt]) -> Iterator[str]:
    """The names a class body binds: functions, assignments, annotations, in every branch."""
    for stmt, _ in statements(body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield stmt.name
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign) and isinstance(stmt.target, ast.Name):
            yield stmt.target.id


def _declares_abstract(index: SourceIndex, module: ModuleSource, node: ast.ClassDef) -> bool:
    """Whether a class is abstract on purpose: it declares abstract members of
    its own, lists ``ABC`` among its bases, or has ``metaclass=ABCMeta``."""
    for base in node.bases:
        dotted = dotted_name(base)
        if dotted is not None and _resolves_to(index, module, dotted, _ABC_BASES):
            return True
    for keyword in node.keywords:
        dotted = dotted_name(keyword.value)
        if keyword.arg == "metaclass" and dotted is not None and _resolves_to(index, module, dotted, _ABC_METACLASSES):
            return True
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in stmt.decorator_list:
                dotted = dotted_name(decorator)
                if dotted is not None and _resolves_to(index, module, dotted, _ABSTRACT_DECORATORS):
                    return True
    return False


def _resolves_to(index: SourceIndex, module: ModuleSource, dotted: str, names: frozenset[str]) -> bool:
    """Whether ``dotted`` in ``module`` names one of ``names`` (stdlib names,
    which the index does not parse: resolved through the import bindings)."""
    head, _, rest = dotted.partition(".")
    if head in module.imports:
        full = module.imports[head] + (f".{rest}" if rest else "")
        return full in names
    return any(f"{star}.{dotted}" in names for star in module.star_imports)


def _require_parsed_dependencies(
    index: SourceIndex, target_modules: Mapping[str, ModuleSource], source_modules: Mapping[str, Path]
) -> None:
    """A target file that cannot be parsed is a note, unless a checked class
    depends on it: then nothing about that class can be verified (mypy stops on
    a syntax error in any module it reads), and the run is an input error."""
    if not index.unparsed:
        return
    imports = imported_modules(target_modules, index)
    needed: set[str] = set(source_modules)
    frontier = list(source_modules)
    while frontier:
        current = frontier.pop()
        for name in imports.get(current, ()):
            if name in index.unparsed:
                raise GateError(
                    f"{index.unparsed[name].replace(': not checked: ', ': ', 1)} "
                    f"(imported by {current}, which defines a checked class)"
                )
            if name in target_modules and name not in needed:
                needed.add(name)
                frontier.append(name)


def imported_modules(names: Iterable[str], index: SourceIndex) -> Mapping[str, frozenset[str]]:
    """For each module (as the index has read it), every module it imports:
    ``from a import b`` names both ``a`` and, in case it is a submodule,
    ``a.b``; unresolvable names included."""
    found: dict[str, frozenset[str]] = {}
    for name in names:
        source = index.get(name)
        if source is None:
            continue
        imported: set[str] = set()
        for node in ast.walk(source.tree):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = absolute_module(source.package, node.module, node.level)
                if base is not None:
                    imported.add(base)
                    imported.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        found[name] = frozenset(imported)
    return found
