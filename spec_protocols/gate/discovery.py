"""Static discovery: which classes to check, found by reading source only.

Nothing here imports a target. Modules are located with
``importlib.machinery.PathFinder`` (which only looks at directories) and read
with :mod:`ast`, so pointing the gate at untrusted plugin code with only the
static checkers never runs that code.

A class is picked when

* it subclasses (directly or not) sglang's ``BaseSpecWorker`` or
  ``spec_protocols.SpecWorkerBase``: checked against ``SpecWorker``;
* it subclasses ``EagleDraftWorkerBase`` or ``TpModelWorker``: ``DraftWorker``;
* it is injected as a draft worker class: a ``draft_worker_cls=X`` keyword in a
  call, a ``draft_worker_cls = X`` class attribute, or a parameter
  ``draft_worker_cls=X`` default: ``DraftWorkerFactory`` (and ``DraftWorker``,
  since what the factory builds must be one).

Base classes are resolved through each module's imports (``TYPE_CHECKING``
imports included), following re-exports, into modules outside the target when
needed (a plugin's worker on sglang's ``EAGLEWorkerV2``).
"""

from __future__ import annotations

import ast
import keyword
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.machinery import PathFinder
from pathlib import Path

from spec_protocols.gate.model import (
    ClassRole,
    DiscoveredClass,
    Discovery,
    GateError,
    ResolvedTarget,
)

__all__ = [
    "DRAFT_ROOTS",
    "imported_modules",
    "search_path",
    "SPEC_ROOTS",
    "discover",
    "find_module_file",
    "resolve_target",
]

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
# How deep to follow a chain of re-exports or base classes before giving up
# (a cycle or a pathological package); nothing real comes close.
_MAX_DEPTH = 40


def search_path(extra: Sequence[Path] = ()) -> list[str]:
    # The current directory first, as `python -m` would, then the interpreter's path.
    return [str(p) for p in extra] + [str(Path.cwd())] + [p for p in sys.path if p]


def find_module_file(name: str, search_path: Sequence[str]) -> Path | None:
    """The source of module ``name``: its ``.py`` file, a package's ``__init__.py``,
    or a namespace package's directory. None when it cannot be found.

    Walks the dotted name one component at a time with ``PathFinder``, which
    reads directories and never executes a package's ``__init__``.
    """
    path: list[str] | None = list(search_path)
    spec = None
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for part in parts:
        if path is None:
            return None  # a plain module has no submodules
        # Only the last component is passed: PathFinder looks up the tail name
        # in `path` anyway, and a dotted name would make it consult
        # sys.modules for the parent of a namespace package (a KeyError when,
        # as here, nothing was imported).
        spec = PathFinder.find_spec(part, path)
        if spec is None:
            return None
        path = list(spec.submodule_search_locations or []) or None
    if spec is None:
        return None
    if spec.origin in (None, "namespace"):
        # A namespace package (sglang.srt and sglang.srt.speculative are).
        locations = list(spec.submodule_search_locations or [])
        return Path(locations[0]) if locations else None
    origin = Path(spec.origin)
    return origin if origin.suffix == ".py" else None


def _package_modules(name: str, init_file: Path) -> dict[str, Path]:
    """Every module of a package, recursively. ``init_file`` is its ``__init__.py``,
    or its directory for a namespace package."""
    namespace = init_file.is_dir()
    root = init_file if namespace else init_file.parent
    found = {} if namespace else {name: init_file}
    for file in sorted(root.rglob("*.py")):
        rel = file.relative_to(root).with_suffix("")
        parts = list(rel.parts)
        if any(not p.isidentifier() for p in parts):
            continue  # e.g. a "tests-data" folder: not importable as a module
        # Below a regular package, only descend through regular packages, as
        # the import system would; a namespace package's subfolders import too.
        if not namespace and not all(
            (root.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(1, len(parts))
        ):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
            if not parts:
                continue
        found[".".join([name, *parts])] = file
    return found


def _module_name_for_file(file: Path) -> tuple[str, Path]:
    """Dotted name of a .py file and the directory it is importable from."""
    file = file.resolve()
    parts = [] if file.name == "__init__.py" else [file.stem]
    directory = file.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    if not parts:
        raise GateError(f"{file}: cannot tell its module name")
    name = ".".join(parts)
    _require_module_name(name)
    return name, directory


def _require_module_name(name: str) -> None:
    """Only names Python could import reach the checkers (and the runtime import).

    Validated here, at the entrance, so that every checker -- the runtime one,
    which imports, included -- only ever sees a dotted identifier.
    """
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in name.split(".")):
        raise GateError(f"{name!r} is not a valid module name; the gate only checks importable names")


def resolve_target(spec: str) -> ResolvedTarget:
    """Locate a TARGET: a dotted module or package, ``module:Class``, or a path.

    Raises :class:`GateError` for a target that cannot be found.
    """
    module_part, sep, class_name = spec.partition(":")
    if sep and not (class_name and class_name.replace(".", "").isidentifier()):
        raise GateError(f"{spec}: expected module:Class, and {class_name!r} is not a class name")
    looks_like_path = module_part.endswith(".py") or "/" in module_part or Path(module_part).exists()
    if looks_like_path:
        path = Path(module_part)
        if not path.exists():
            raise GateError(f"{spec}: no such file or directory")
        if path.is_file():
            if path.suffix != ".py":
                raise GateError(f"{spec}: not a Python file")
            name, root = _module_name_for_file(path)
            return ResolvedTarget(spec, {name: path.resolve()}, root, class_name or None)
        init = path / "__init__.py"
        if init.is_file():
            name, root = _module_name_for_file(init)
            return ResolvedTarget(spec, _package_modules(name, init.resolve()), root, class_name or None)
        # A plain directory of modules (no __init__.py): its files are top-level modules.
        root = path.resolve()
        modules: dict[str, Path] = {}
        for file in sorted(root.glob("*.py")):
            if file.stem.isidentifier():
                modules[file.stem] = file
        for sub in sorted(root.iterdir()):
            if (sub / "__init__.py").is_file() and sub.name.isidentifier():
                modules.update(_package_modules(sub.name, sub / "__init__.py"))
        if not modules:
            raise GateError(f"{spec}: no Python modules in this directory")
        return ResolvedTarget(spec, modules, root, class_name or None)

    if not all(part.isidentifier() for part in module_part.split(".")):
        raise GateError(f"{spec}: not a module name, module:Class, or existing path")
    found = find_module_file(module_part, search_path())
    if found is None:
        raise GateError(f"{spec}: no module named {module_part!r} on the import path")
    file = found
    # The directory the top-level package lives in: one level up per dotted part.
    depth = len(module_part.split(".")) - (0 if file.name == "__init__.py" or file.is_dir() else 1)
    root = file.parent
    for _ in range(depth):
        root = root.parent
    if file.is_dir():
        if class_name:
            raise GateError(f"{spec}: {module_part} is a namespace package, not a module")
        modules = _package_modules(module_part, file)
        if not modules:
            raise GateError(f"{spec}: no Python modules in {file}")
        return ResolvedTarget(spec, modules, root)
    if file.name == "__init__.py" and not class_name:
        return ResolvedTarget(spec, _package_modules(module_part, file), root)
    return ResolvedTarget(spec, {module_part: file}, root, class_name or None)


# -- parsing ---------------------------------------------------------------


@dataclass
class _Module:
    name: str
    file: Path
    is_package: bool
    #: local name -> fully qualified dotted name it was imported as
    imports: dict[str, str] = field(default_factory=dict[str, str])
    #: qualname -> class definition (nested classes as Outer.Inner)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict[str, ast.ClassDef])
    tree: ast.Module | None = None


def _parse(name: str, file: Path, *, strict: bool) -> _Module | None:
    try:
        source = file.read_bytes()
        tree = ast.parse(source, filename=str(file))
    except SyntaxError as exc:
        if strict:
            raise GateError(f"{file}:{exc.lineno}: syntax error: {exc.msg}") from None
        return None
    except (OSError, ValueError) as exc:
        if strict:
            raise GateError(f"{file}: cannot read: {exc}") from None
        return None
    module = _Module(name, file, file.name == "__init__.py", tree=tree)
    package = name if module.is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.imports[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    module.imports.setdefault(top, top)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute_from(package, node.module, node.level)
            if base is None:
                continue
            for alias in node.names:
                if alias.name != "*":
                    module.imports[alias.asname or alias.name] = f"{base}.{alias.name}"

    def collect(body: Iterable[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                qual = f"{prefix}{stmt.name}"
                module.classes[qual] = stmt
                collect(stmt.body, qual + ".")
            elif isinstance(stmt, ast.If | ast.Try):
                # Classes defined under `if TYPE_CHECKING:` / try-except are still classes.
                collect(stmt.body, prefix)
                collect(stmt.orelse, prefix)

    collect(tree.body, "")
    return module


def _absolute_from(package: str, module: str | None, level: int) -> str | None:
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base) or None


def _dotted(expr: ast.expr) -> str | None:
    """``a.b.C`` for a Name/Attribute chain; None for anything else."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        head = _dotted(expr.value)
        return None if head is None else f"{head}.{expr.attr}"
    if isinstance(expr, ast.Subscript):  # Generic[T], SomeBase[int]
        return _dotted(expr.value)
    return None


class _Index:
    """Parsed modules, loaded on demand, and class-name resolution across them."""

    def __init__(self, search_path: list[str]) -> None:
        self._search_path = search_path
        self._modules: dict[str, _Module | None] = {}

    def add(self, name: str, file: Path) -> _Module:
        module = _parse(name, file, strict=True)
        assert module is not None
        self._modules[name] = module
        return module

    def get(self, name: str) -> _Module | None:
        if name not in self._modules:
            file = find_module_file(name, self._search_path)
            # Modules outside the target are read leniently: a syntax error in
            # some dependency is not the user's input error.
            self._modules[name] = None if file is None else _parse(name, file, strict=False)
        return self._modules[name]

    def resolve(self, module: _Module, dotted: str, depth: int = 0) -> str | None:
        """The fully qualified ``module.Class`` that ``dotted`` names in ``module``."""
        if depth > _MAX_DEPTH:
            return None
        head, _, rest = dotted.partition(".")
        if dotted in module.classes:
            return f"{module.name}.{dotted}"
        if head in module.imports:
            full = module.imports[head] + (f".{rest}" if rest else "")
            return self.canonical(full, depth + 1)
        return None

    def canonical(self, full: str, depth: int = 0) -> str | None:
        """Follow re-exports until ``full`` names the module that defines the class."""
        if depth > _MAX_DEPTH:
            return None
        parts = full.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self.get(".".join(parts[:cut]))
            if module is None:
                continue
            return self.resolve(module, ".".join(parts[cut:]), depth + 1) or (
                full if full in _ROOTS else None
            )
        return full if full in _ROOTS else None

    def class_def(self, qualified: str) -> tuple[_Module, str, ast.ClassDef] | None:
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self.get(".".join(parts[:cut]))
            if module is not None:
                qual = ".".join(parts[cut:])
                node = module.classes.get(qual)
                return None if node is None else (module, qual, node)
        return None

    def ancestry(self, qualified: str) -> tuple[str, ...]:
        """Resolved base classes of ``qualified``, breadth first (roots included)."""
        seen: list[str] = []
        queue = [qualified]
        while queue and len(seen) < 200:
            current = queue.pop(0)
            if current in _ROOTS and current != qualified:
                continue  # stop at a root: its own bases are not interesting
            found = self.class_def(current)
            if found is None:
                continue
            module, _, node = found
            for base in node.bases:
                dotted = _dotted(base)
                resolved = None if dotted is None else self.resolve(module, dotted)
                if resolved is not None and resolved not in seen and resolved != qualified:
                    seen.append(resolved)
                    queue.append(resolved)
        return tuple(seen)


def _injections(module: _Module) -> Iterator[tuple[ast.expr, int]]:
    """Every expression injected as ``draft_worker_cls`` in a module, with its line."""
    assert module.tree is not None
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == _INJECTION_NAME:
                    yield kw.value, kw.value.lineno
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == _INJECTION_NAME for t in stmt.targets
                ):
                    yield stmt.value, stmt.lineno
                elif (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.target.id == _INJECTION_NAME
                    and stmt.value is not None
                ):
                    yield stmt.value, stmt.lineno
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
                if arg.arg == _INJECTION_NAME:
                    yield default, default.lineno
            for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
                if arg.arg == _INJECTION_NAME and kw_default is not None:
                    yield kw_default, kw_default.lineno


def discover(targets: Sequence[ResolvedTarget]) -> Discovery:
    """Find the classes to check in ``targets``; raise GateError if there are none."""
    roots = [t.search_root for t in targets]
    index = _Index(search_path(roots))
    target_modules: dict[str, _Module] = {}
    for target in targets:
        for name, file in target.modules.items():
            target_modules[name] = index.add(name, file)

    picked: dict[str, set[ClassRole]] = {}
    sites: dict[str, list[str]] = {}
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
        for expr, line in _injections(module):
            dotted = _dotted(expr)
            resolved = None if dotted is None else index.resolve(module, dotted)
            # A forwarded parameter (draft_worker_cls=draft_worker_cls) or any
            # non-class expression resolves to nothing: not an injection site.
            if resolved is None or index.class_def(resolved) is None:
                continue
            picked.setdefault(resolved, set()).update({ClassRole.INJECTED, ClassRole.DRAFT_WORKER})
            sites.setdefault(resolved, []).append(f"{module.file}:{line}")

    for module_name, class_name in wanted:
        module = target_modules[module_name]
        if class_name not in module.classes:
            what = "defines no class" if class_name not in module.imports else "imports it but does not define a class"
            raise GateError(f"{module_name}:{class_name}: {module_name} {what} named {class_name!r}")

    # With only module:Class targets, report just those classes.
    if wanted and len(wanted) == len(targets):
        keep = {f"{m}.{c}" for m, c in wanted}
        picked = {k: v for k, v in picked.items() if k in keep}

    classes: list[DiscoveredClass] = []
    source_modules: dict[str, Path] = {}
    for qualified, roles in sorted(picked.items()):
        found = index.class_def(qualified)
        if found is None:
            continue
        module, qual, node = found
        chain = index.ancestry(qualified)
        classes.append(
            DiscoveredClass(
                module=module.name,
                qualname=qual,
                file=module.file,
                line=node.lineno,
                roles=frozenset(roles),
                bases=chain,
                injection_sites=tuple(sites.get(qualified, ())),
            )
        )
        # The checkers must read, from source, the module of the class and of
        # every base up to the roots (stubs never shadow code under test).
        for name in (qualified, *chain):
            defined = index.class_def(name)
            if defined is not None:
                source_modules[defined[0].name] = defined[0].file

    if not classes:
        specs = ", ".join(t.spec for t in targets)
        raise GateError(f"no workers found in {specs}: no subclass of BaseSpecWorker, SpecWorkerBase, "
                        "EagleDraftWorkerBase or TpModelWorker, and no draft_worker_cls injection")
    # A root that is an installed site-packages needs no adding (the checkers
    # search it anyway), and adding it would let pyright read every package in it.
    extra = [r for r in roots if not {"site-packages", "dist-packages"} & set(r.parts)]
    source_modules = {m: f for m, f in source_modules.items() if m.partition(".")[0] not in sys.stdlib_module_names}
    return Discovery(tuple(classes), source_modules, tuple(dict.fromkeys(extra)))


def imported_modules(modules: Mapping[str, Path]) -> frozenset[str]:
    """Every module the given modules import (``from a import b`` names both
    ``a`` and, in case it is a submodule, ``a.b``); unresolvable names included."""
    found: set[str] = set()
    for name, file in modules.items():
        module = _parse(name, file, strict=False)
        if module is None or module.tree is None:
            continue
        package = name if module.is_package else name.rpartition(".")[0]
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute_from(package, node.module, node.level)
                if base is not None:
                    found.add(base)
                    found.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(found)


def module_roles(discovery: Discovery) -> Mapping[str, frozenset[ClassRole]]:
    """Roles by dotted class path (a convenience for reports and tests)."""
    return {c.dotted: c.roles for c in discovery.classes}
