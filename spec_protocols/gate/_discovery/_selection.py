"""Static discovery: which classes and injection sites to check, from source only.

Nothing here imports a target (see :mod:`spec_protocols.gate._discovery._targets` for how
targets are located and :mod:`spec_protocols.gate._discovery._source_index` for how their
source is read). A class is picked when

* it subclasses (directly or not) sglang's ``BaseSpecWorker`` or
  ``spec_protocols.SpecWorkerBase``: checked against ``SpecWorker`` (and, when
  it is not an intentional base, its constructor against ``SpecWorkerFactory``);
* it subclasses ``EagleDraftWorkerBase`` or ``TpModelWorker``: ``DraftWorker``;
* a plain reference to it is injected as ``draft_worker_cls``:
  ``DraftWorkerFactory`` (and ``DraftWorker``, since what the factory builds
  must be one).

Any other expression injected as ``draft_worker_cls`` (``self.attr``, a
``functools.partial``, a factory function, a lambda, a class defined in a
function, a conditional expression) is an :class:`InjectionSite`: discovery
does not try to understand it; the static checkers judge it in place
(:mod:`spec_protocols.gate._harness._sites`). Injections are found wherever the name
``draft_worker_cls`` is given a value: a call keyword, a ``**{...}`` or any
dict literal key, a ``x["draft_worker_cls"] = ...`` assignment, a class
attribute, a parameter default. A parameter forwarded unchanged
(``draft_worker_cls=draft_worker_cls``) is not an injection: its default and
its callers' keywords are.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from spec_protocols.gate._model import (
    ClassRole,
    DiscoveredClass,
    Discovery,
    GateError,
    InjectionSite,
    ResolvedTarget,
)
from spec_protocols.gate._discovery._members import member_definitions
from spec_protocols.gate._discovery._source_index import (
    ModuleSource,
    SourceIndex,
    SourceReads,
    absolute_module,
    dotted_name,
)
from spec_protocols.gate._module_paths import search_path
from spec_protocols.gate._paths import in_installation

__all__ = ["DRAFT_ROOTS", "SPEC_ROOTS", "discover"]

#: Fully qualified names of the classes whose subclasses are spec workers.
SPEC_ROOTS: frozenset[str] = frozenset(
    {
        "sglang.srt.speculative.base_spec_worker.BaseSpecWorker",
        "spec_protocols._base.SpecWorkerBase",
    }
)
#: ... and draft workers. The roots themselves are bases, not workers, except
#: TpModelWorker, which sglang uses as a draft worker as it is (DFlash, DSpark);
#: it is picked up where it is injected (build_draft_tp_worker's default).
DRAFT_ROOTS: frozenset[str] = frozenset(
    {
        "sglang.srt.speculative.base_spec_worker.EagleDraftWorkerBase",
        "sglang.srt.managers.tp_worker.TpModelWorker",
    }
)
_ROOTS = SPEC_ROOTS | DRAFT_ROOTS
_INJECTION_NAME = "draft_worker_cls"
_ABSTRACT_DECORATORS = frozenset(
    {"abc.abstractmethod", "abc.abstractproperty", "abc.abstractclassmethod", "abc.abstractstaticmethod"}
)
_ABC_BASES = frozenset({"abc.ABC"})
_ABC_METACLASSES = frozenset({"abc.ABCMeta"})


@dataclass(frozen=True, slots=True)
class _Injection:
    """One value given to ``draft_worker_cls`` in a target module."""

    module: ModuleSource
    scope: str
    value: ast.expr


def discover(
    targets: Sequence[ResolvedTarget], extra_roots: Sequence[Path] = (), *, read: SourceReads | None = None
) -> Discovery:
    """Find the classes and injection sites to check in ``targets``.

    ``extra_roots`` are searched first (``--sglang``'s source: the sglang
    base classes are read from there), and passed on to the checkers.
    ``read``, when given, receives the name of every module discovery looked
    for (found or not) and each file it parsed, with the digest of what it
    parsed, on success or failure: the verdict cache keys a stored discovery
    on them.

    Raises GateError when there is nothing to check, or when a checked class
    depends on a target file that cannot be parsed.
    """
    roots = [*extra_roots, *(t.search_root for t in targets)]
    index = SourceIndex(search_path(roots), _ROOTS)
    try:
        return _discover(targets, roots, index)
    finally:
        if read is not None:
            index.record(read)


def _discover(targets: Sequence[ResolvedTarget], roots: Sequence[Path], index: SourceIndex) -> Discovery:
    target_modules: dict[str, ModuleSource] = {}
    notes: list[str] = [note for t in targets for note in t.notes]
    for target in targets:
        # A target of one file must parse; a file that is merely part of a
        # package or folder becomes a note when it does not.
        strict = len(target.modules) == 1
        for name, file in target.modules.items():
            if name in target_modules:
                continue
            module = index.add(name, file, strict=strict)
            if module is not None:
                target_modules[name] = module

    picked: dict[str, set[ClassRole]] = {}
    injected_at: dict[str, list[str]] = {}
    sites: list[InjectionSite] = []
    # (module, class) pairs named as module:Class; such a target has one module.
    wanted = {(next(iter(t.modules)), t.class_name) for t in targets if t.class_name and t.modules}

    for module in target_modules.values():
        for qual in module.classes:
            qualified = f"{module.name}.{qual}"
            if qualified in _ROOTS:
                continue
            chain = index.ancestry(qualified)
            roles: set[ClassRole] = set()
            if any(b in SPEC_ROOTS for b in chain):
                roles.add(ClassRole.SPEC_WORKER)
            if any(b in DRAFT_ROOTS for b in chain):
                roles.add(ClassRole.DRAFT_WORKER)
            if (module.name, qual) in wanted and not roles:
                # Named explicitly but on no known base: structural typing is
                # the point of a protocol, so check it as a spec worker.
                roles.add(ClassRole.SPEC_WORKER)
            if roles:
                picked.setdefault(qualified, set()).update(roles)
        for unreachable in module.unreachable:
            notes.append(
                f"{module.name}.{unreachable.qualname} ({module.file}:{unreachable.line}) is defined only when "
                f"{unreachable.condition}, which is false on Python {sys.version_info.major}.{sys.version_info.minor} "
                f"({sys.platform}): not checked"
            )
        for injection in _injections(module):
            site_or_class = _classify_injection(index, injection)
            if isinstance(site_or_class, str):
                picked.setdefault(site_or_class, set()).update({ClassRole.INJECTED, ClassRole.DRAFT_WORKER})
                injected_at.setdefault(site_or_class, []).append(f"{module.file}:{injection.value.lineno}")
            elif site_or_class is not None:
                sites.append(site_or_class)

    for module_name, class_name in wanted:
        module = target_modules[module_name]
        if class_name not in module.classes:
            what = "defines no class" if class_name not in module.imports else "imports it but does not define a class"
            raise GateError(f"{module_name}:{class_name}: {module_name} {what} named {class_name!r}")

    # With only module:Class targets, report just those classes.
    if wanted and len(wanted) == len(targets):
        keep = {f"{m}.{c}" for m, c in wanted}
        picked = {k: v for k, v in picked.items() if k in keep}
        sites = []

    sites = _number_sites(sites)
    classes: list[DiscoveredClass] = []
    source_modules: dict[str, Path] = {}
    subclassed = {base for qualified in picked for base in index.ancestry(qualified)}
    for qualified, roles in sorted(picked.items()):
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
                injection_sites=tuple(injected_at.get(qualified, ())),
                may_be_abstract=qualified in subclassed or _declares_abstract(index, module, info.node),
                overrides=_overrides(index, qualified),
                members=member_definitions(index, qualified, _ROOTS),
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
    for site in sites:
        source_modules[site.module] = site.file

    _require_parsed_dependencies(index, target_modules, source_modules)
    notes.extend(index.unparsed[name] for name in sorted(index.unparsed))
    if not classes and not sites:
        specs = ", ".join(t.spec for t in targets)
        raise GateError(
            f"no workers found in {specs}: no subclass of BaseSpecWorker, SpecWorkerBase, "
            "EagleDraftWorkerBase or TpModelWorker, and no draft_worker_cls injection"
        )
    # A root that is an installed site-packages needs no adding (the checkers
    # search it anyway), and adding it would let pyright read every package in it.
    extra = [r for r in roots if not in_installation(r)]
    source_modules = {m: f for m, f in source_modules.items() if m.partition(".")[0] not in sys.stdlib_module_names}
    imported = frozenset(n for names in imported_modules(source_modules, index).values() for n in names)
    return Discovery(
        tuple(classes),
        source_modules,
        tuple(dict.fromkeys(extra)),
        sites=tuple(sites),
        notes=tuple(dict.fromkeys(notes)),
        imported_modules=imported,
    )


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
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield stmt.name
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign) and isinstance(stmt.target, ast.Name):
            yield stmt.target.id
        elif isinstance(stmt, ast.If | ast.While | ast.For | ast.With | ast.Try):
            for block in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, block, [])
                if block == "handlers":
                    inner = [s for handler in inner for s in handler.body]
                yield from _body_names(inner)


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


# -- injections ------------------------------------------------------------------


def _injections(module: ModuleSource) -> Iterator[_Injection]:
    """Every value given to ``draft_worker_cls`` in a module, with its scope."""
    yield from _InjectionFinder(module).find()


class _InjectionFinder(ast.NodeVisitor):
    def __init__(self, module: ModuleSource) -> None:
        self.module = module
        self.scope: list[str] = []
        #: parameters of the enclosing functions, innermost last
        self.parameters: list[frozenset[str]] = []
        self.found: list[_Injection] = []

    def find(self) -> list[_Injection]:
        self.visit(self.module.tree)
        return self.found

    def _add(self, value: ast.expr, scope: str | None = None) -> None:
        if isinstance(value, ast.Name) and self.parameters and value.id in self.parameters[-1]:
            return  # forwarded unchanged: judged at its default and its callers
        self.found.append(_Injection(self.module, scope or ".".join(self.scope) or "<module>", value))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self.scope.append(node.name)
        for stmt in node.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
            value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
            if value is not None and any(isinstance(t, ast.Name) and t.id == _INJECTION_NAME for t in targets):
                self._add(value)
            self.visit(stmt)
        self.scope.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args
        if not isinstance(node, ast.Lambda):
            for expr in node.decorator_list:
                self.visit(expr)
        positional = [*args.posonlyargs, *args.args]
        own_scope = ".".join([*self.scope, node.name]) if not isinstance(node, ast.Lambda) else None
        defaults = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
        defaults += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for arg, default in defaults:
            # Defaults are evaluated where the function is defined.
            self.visit(default)
            is_sentinel = isinstance(default, ast.Constant) and default.value is None
            if arg.arg == _INJECTION_NAME and not is_sentinel:
                self._add(default, own_scope)
        names = {a.arg for a in [*positional, *args.kwonlyargs]}
        names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
        if not isinstance(node, ast.Lambda):
            self.scope.append(node.name)
        self.parameters.append(frozenset(names))
        body = node.body if isinstance(node.body, list) else [node.body]
        for stmt in body:
            self.visit(stmt)
        self.parameters.pop()
        if not isinstance(node, ast.Lambda):
            self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._function(node)

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg == _INJECTION_NAME:
                self._add(keyword.value)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        # `**{"draft_worker_cls": X}`, `kwargs = {"draft_worker_cls": X}`
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and key.value == _INJECTION_NAME:
                self._add(value)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        # kwargs["draft_worker_cls"] = X
        for target in node.targets:
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.slice, ast.Constant)
                and target.slice.value == _INJECTION_NAME
            ):
                self._add(node.value)
        self.generic_visit(node)


def _classify_injection(index: SourceIndex, injection: _Injection) -> str | InjectionSite | None:
    """A plain reference to a class: its qualified name. Anything else: a site."""
    value = injection.value
    module = injection.module
    dotted = dotted_name(value) if isinstance(value, ast.Name | ast.Attribute) else None
    if dotted is not None and not dotted.startswith(("self.", "cls.")):
        resolved = index.resolve(module, dotted)
        if resolved is not None and index.class_def(resolved) is not None:
            return resolved
    segment = ast.get_source_segment(module.source, value) or ast.unparse(value)
    assert value.end_lineno is not None and value.end_col_offset is not None
    return InjectionSite(
        target=f"{module.name}.{injection.scope}:{_INJECTION_NAME}",
        module=module.name,
        file=module.file,
        line=value.lineno,
        col=value.col_offset,
        end_line=value.end_lineno,
        end_col=value.end_col_offset,
        text=" ".join(segment.split()),
    )


def _number_sites(sites: Sequence[InjectionSite]) -> list[InjectionSite]:
    """``#2``, ``#3`` for further sites in one scope, in source order."""
    ordered = sorted(sites, key=lambda s: (s.module, s.line, s.col))
    seen: dict[str, int] = {}
    numbered: list[InjectionSite] = []
    for site in ordered:
        count = seen.get(site.target, 0) + 1
        seen[site.target] = count
        numbered.append(replace(site, target=f"{site.target}#{count}") if count > 1 else site)
    return numbered


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
