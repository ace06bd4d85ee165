"""The harness stage: what the checkers need, prepared from discovery's findings.

``_lines``            the generated harness module and the tag of each of its lines
``_protocol_source``  the protocols' own text as harness source (callback
                      protocols, signatures as a release calls them, construction calls)
``_sites``            shadow copies of the modules that hold injection sites
``_regions``          a checked class's own lines in its source, and the
                      constructs in it no checker models
``_environment``      where the static checkers look: the stub overlay, the
                      static view of site-packages, the cache

:func:`prepare` turns a :class:`~spec_protocols.gate._model.Discovery` into a
:class:`CheckInput`, the one frozen value every checker's ``run`` receives.
This module is the stage's face: the checkers (and the cache) use what it
exports, never its modules.
"""

from __future__ import annotations

import ast
import re
import shutil
import tempfile
from collections.abc import Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from spec_protocols._releases import STUBS_RELEASE
from spec_protocols.gate._contract import ReleaseTerms, release_terms
from spec_protocols.gate._harness._environment import (
    installed_packages,
    library_root,
    mypy_view,
    static_view,
    stub_modules,
    stub_overlay,
    stub_source,
)
from spec_protocols.gate._harness._lines import Harness, LineKind, LineTag, build_harness
from spec_protocols.gate._harness._draft_reads import built_by
from spec_protocols.gate._harness._regions import CONSTRUCTORS, ClassRegions, class_regions
from spec_protocols.gate._harness._sites import SITE_FUNCTION, SiteShadow, build_shadow, is_canary
from spec_protocols.gate._model import Discovery
from spec_protocols.gate._paths import cache_dir, search_path
from spec_protocols.gate._harness._protocol_source import sglang_origins
from spec_protocols.gate._source import find_module_file, parse_file, statements
from spec_protocols.gate._roles import Construction

__all__ = [
    "CONSTRUCTORS",
    "SITE_FUNCTION",
    "ClassRegions",
    "built_by",
    "CheckInput",
    "Harness",
    "LineKind",
    "LineTag",
    "SiteShadow",
    "StaticInput",
    "build_harness",
    "class_modules",
    "class_regions",
    "is_canary",
    "library_root",
    "mypy_view",
    "prepare",
    "release_lacks",
    "static_view",
    "stub_source",
]


@dataclass(frozen=True, slots=True)
class StaticInput:
    """What the static checkers read: the harness, written out, and their view."""

    harness: Harness
    harness_file: Path
    #: A private directory for this run's configuration files.
    workdir: Path
    #: The stub overlay: mypy_path's first entry, pyright's stubPath.
    overlay: Path
    #: The stubbed sglang modules mypy follows (never skips to Any): the
    #: overlay's stubs, and, against a release other than the stubs' own, the
    #: same modules read from that release's source.
    stubbed: frozenset[str]
    #: Shadows of the modules holding injection sites, if any.
    shadow: SiteShadow | None
    #: The installed packages the checks read from source, by top-level name
    #: (see :func:`~spec_protocols.gate._harness._environment.installed_packages`):
    #: each checker's view links them.
    installed: Mapping[str, Path] = field(default_factory=dict[str, Path])
    #: The plugin's own modules that define a checked class or one of its
    #: members (module name -> file; none of sglang's): the checkers report on
    #: them, so that what they say about a checked class counts
    #: (:func:`class_modules`).
    class_files: Mapping[str, Path] = field(default_factory=dict[str, Path])


def class_modules(found: Discovery) -> dict[str, Path]:
    """The modules, outside sglang, that define a checked class or a member a
    lookup on one finds: what the checkers report on besides the harness.

    sglang's own modules are the reference the plugin is checked against,
    and this package's are the checking itself: neither is the subject, and
    what a checker says inside them is never a verdict.
    """
    by_file = {file.resolve(): name for name, file in found.source_modules.items()}
    wanted: dict[str, Path] = {}
    for cls in found.classes:
        files = [cls.file, *(m.file for m in cls.members)]
        for file in files:
            name = by_file.get(file.resolve())
            if name is not None and name.partition(".")[0] not in ("sglang", "spec_protocols"):
                wanted[name] = found.source_modules[name]
    return dict(sorted(wanted.items()))


@dataclass(frozen=True, slots=True)
class CheckInput:
    """Everything a checker needs for one run."""

    discovery: Discovery
    timeout: float
    #: None when no checker that reads the harness runs.
    static: StaticInput | None
    #: What the release checked against asks (members, keywords, needs).
    terms: ReleaseTerms
    #: The folder holding the ``sglang/`` the checkers read; None: the import
    #: system's (or none at all).
    sglang_root: Path | None = None


def _skippable(found: Discovery) -> list[str]:
    """The sglang modules that the code under check imports and no check reads."""
    names = sorted(n for n in found.imported_modules if n.partition(".")[0] == "sglang")
    path = search_path(found.search_roots)
    # Hundreds of names below one package: each is looked up below the deepest
    # package already walked, not from the top of the search path again.
    packages: dict[str, list[str]] = {}
    return [n for n in names if n not in found.source_modules and find_module_file(n, path, packages) is not None]


def _unstubbed(found: Discovery, terms: ReleaseTerms) -> set[str]:
    """The sglang modules the checkers read from the release's own source, not the stubs.

    Always the modules discovery put under check (they define a checked class
    or one of its bases). Against a release other than the stubs' own
    (:data:`~spec_protocols._releases.STUBS_RELEASE`) also the stubbed modules
    the code under check imports: the stubs say what 0.5.23 declares, and
    the plugin's calls are held to its release's functions (0.5.20's
    ``build_draft_tp_worker`` takes ``ps``; 0.5.23's does not). The modules
    only the harness imports keep their stubs: they give the protocols'
    vocabulary (``BaseTokenToKVPoolAllocator`` and the like), which other
    releases define elsewhere."""
    unstubbed = set(found.source_modules)
    if terms.release is not None and terms.release != STUBS_RELEASE:
        unstubbed.update(set(stub_modules()) & _sglang_imports_of_plugin(found))
    return unstubbed


def release_lacks(found: Discovery, terms: ReleaseTerms) -> dict[str, str]:
    """The protocols' sglang names (:func:`sglang_origins`) that the checkers
    will find missing: name -> the module it should be in.

    A name is looked up where the checkers look: in the stub overlay (the
    stubs' release defines every one) unless its module is read from the
    release's own source (:func:`_unstubbed`, or no stub at all), and there
    it must be bound by a statement the module runs (under any branch:
    ``TYPE_CHECKING`` included). A module behind a skip stub is all ``Any``.
    The harness writes each lacking name as ``Any`` instead of importing it
    (an import of it is the checker's error on the harness, not the plugin's:
    0.5.5 has no ``LoadGroup``), and the run's note names them.
    """
    from_source = _unstubbed(found, terms)
    stubbed = set(stub_modules()) - from_source
    skipped = set(_skippable(found)) - from_source
    path = search_path(found.search_roots)
    lacking: dict[str, str] = {}
    for name, module in sorted(sglang_origins().items()):
        if module in stubbed or module in skipped:
            continue
        bound = _module_binds(module, path)
        if bound is not None and name not in bound:
            lacking[name] = module
    return lacking


def _module_binds(module: str, path: Sequence[str]) -> frozenset[str] | None:
    """The names ``module``'s source binds at its own level; None when it
    cannot be told (a package folder, a star import, unreadable source).
    A module not found binds nothing: the checkers cannot find it either."""
    file = find_module_file(module, path)
    if file is None:
        return frozenset()
    if file.is_dir():
        return None
    try:
        tree = parse_file(file).tree
    except (OSError, SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for stmt, _ in statements(tree.body):
        if isinstance(stmt, ast.ImportFrom) and any(alias.name == "*" for alias in stmt.names):
            return None
        names.update(_bound_by(stmt))
    return frozenset(names)


def _bound_by(stmt: ast.stmt) -> Iterator[str]:
    """The module-level names one statement binds (its nested blocks aside)."""
    if isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        yield stmt.name
    elif isinstance(stmt, ast.Import | ast.ImportFrom):
        for alias in stmt.names:
            yield alias.asname or alias.name.partition(".")[0]
    elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor | ast.With | ast.AsyncWith):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else _targets_of(stmt)
        for target in targets:
            yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _targets_of(stmt: ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor | ast.With | ast.AsyncWith) -> list[ast.expr]:
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    return [stmt.target]


def _sglang_imports_of_plugin(found: Discovery) -> set[str]:
    """The sglang modules the plugin's own modules (not sglang's) import by
    an absolute import; ``from a.b import c`` counts ``a.b`` and ``a.b.c``."""
    names: set[str] = set()
    for module, file in found.source_modules.items():
        if module.partition(".")[0] == "sglang":
            continue
        try:
            tree = parse_file(file).tree
        except (OSError, SyntaxError, ValueError):
            continue  # discovery already said what it could not read
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {n for n in names if n.partition(".")[0] == "sglang"}


@contextmanager
def prepare(
    found: Discovery,
    *,
    timeout: float,
    static: bool,
    terms: ReleaseTerms | None = None,
    sglang_root: Path | None = None,
    directives: Sequence[re.Pattern[str]] = (),
) -> Generator[CheckInput]:
    """The checkers' input; ``static``: also write the harness and the views.

    ``terms``: what the release checked against asks (default: the newest
    supported release's protocols). ``directives``: the comments addressed
    to the static checkers that run, blanked in the shadows of modules holding
    injection sites (none may silence a rewritten call). The run's private
    directory is removed when the block ends.
    """
    terms = terms if terms is not None else release_terms(None)
    if not static:
        yield CheckInput(found, timeout, None, terms, sglang_root)
        return
    # A site is called as build_draft_tp_worker calls draft_worker_cls.
    shadow = build_shadow(found.sites, cache_dir(), Construction.DRAFT_FACTORY.keywords(terms), directives)
    site_modules: dict[str, list[str]] = {}
    for site in found.sites:
        site_modules.setdefault(site.module, []).append(site.target)
    harness = build_harness(found.classes, site_modules=site_modules, terms=terms, absent=release_lacks(found, terms))
    unstubbed = _unstubbed(found, terms)
    overlay, stubbed = stub_overlay(unstubbed, skip=_skippable(found), search=search_path(found.search_roots))
    # A module read from the release's own source rather than its stub is
    # still followed (for mypy: never skipped to Any, which would pass a
    # need on TpModelWorker vacuously).
    followed = stubbed | frozenset(unstubbed - set(found.source_modules))
    base = cache_dir() / "runs"
    base.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="run-", dir=base))
    try:
        harness_file = workdir / f"{harness.module_name}.py"
        harness_file.write_text(harness.text, encoding="utf-8")
        static_input = StaticInput(
            harness,
            harness_file,
            workdir,
            overlay,
            followed,
            shadow,
            installed_packages(found.source_modules),
            class_modules(found),
        )
        yield CheckInput(found, timeout, static_input, terms, sglang_root)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
