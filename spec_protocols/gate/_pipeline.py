"""The stages of one run, release by release: what :func:`~spec_protocols.gate._run.run` does
when the run memo has no answer.

Per release: its contract and terms, then per group of targets a discovery,
the harness on those terms, the checkers in parallel, their verdicts
combined (docs/design.md, "One way through"). The releases of a request run
side by side, as many at once as the CPUs hold their checkers; each is the
run that one ``--sglang`` makes, sharing the verdict cache, whose keys hold
each release's own source.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
import time
from collections.abc import Collection, Generator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from spec_protocols._releases import NEWEST, OLDEST
from spec_protocols.gate._cache import StageCache, open_cache
from spec_protocols.gate._checkers import CHECKERS, Checker, default_names
from spec_protocols.gate._contract import (
    ReleaseTerms,
    SglangSource,
    extract_contract,
    fetch_release,
    installed_source,
    release_terms,
    resolve_sglang,
)
from spec_protocols.gate._discovery import discover, require_found, require_importing, resolve_target
from spec_protocols.gate._harness import CheckInput, prepare
from spec_protocols.gate._model import (
    Check,
    CheckerCrashed,
    CheckerOutcome,
    CheckerSkip,
    ClassRole,
    DiscoveredClass,
    Discovery,
    GateError,
    GateReport,
    Problem,
    ReadSet,
    ResolvedTarget,
    Result,
    SglangChecked,
    SkipReason,
    Verdict,
)
from spec_protocols.gate._paths import cache_dir, in_installation, search_path
from spec_protocols.gate._releases_run import release_jobs
from spec_protocols.gate._reports import messages
from spec_protocols.gate._request import CachePolicy, GateRequest
from spec_protocols.gate._source import find_module_file, parses_shared
from spec_protocols.gate._remedies import with_remedies
from spec_protocols.gate._verdicts import combine

__all__ = ["DEFAULT_TARGET", "checkers_for_sglang", "choose_checkers", "default_targets", "run_stages"]

#: What `spec-protocols check` checks with no TARGET, when sglang is installed.
DEFAULT_TARGET = "sglang.srt.speculative"
#: ... and otherwise: reference workers shipped with this package.
REFERENCE_TARGET = "spec_protocols.reference"


def default_targets() -> list[str]:
    """The embedded default: the installed sglang's speculative package, else the reference workers."""
    return _default_targets(())


def _default_targets(roots: Sequence[Path]) -> list[str]:
    """sglang's speculative package (``--sglang``'s when given), else the reference workers."""
    if find_module_file(DEFAULT_TARGET, search_path(roots)) is not None:
        return [DEFAULT_TARGET]
    return [REFERENCE_TARGET]


def _is_installed(source: SglangSource) -> bool:
    """Whether ``source`` is the sglang the import system would load (``--sglang``
    naming the installed tree keeps the runtime checker)."""
    installed = installed_source()
    return installed is not None and installed.root.resolve() == source.root.resolve()


def choose_checkers(request: GateRequest) -> tuple[Checker, ...]:
    """The checkers ``request`` runs, in report order (the registry's, then any
    other in the order given): a :class:`GateError` for a name the registry
    does not know, for none, and for one that imports the target named
    together with ``--no-import``; asked for none by name, ``--no-import``
    leaves out those that import."""
    registry = request.registry if request.registry is not None else CHECKERS
    names = request.checkers if request.checkers is not None else _defaults(registry)
    unknown = [name for name in names if name not in registry]
    if unknown:
        raise GateError(f"unknown checker {unknown[0]!r}; choose from {', '.join(registry)}")
    chosen = _importing_allowed(request, [registry[name] for name in dict.fromkeys(names)])
    order = {name: n for n, name in enumerate(CHECKERS)}
    return tuple(sorted(chosen, key=lambda c: (order.get(c.name, len(order)), names.index(c.name))))


def _importing_allowed(request: GateRequest, chosen: list[Checker]) -> list[Checker]:
    """``chosen``, less what ``--no-import`` refuses (a :class:`GateError` where the request named it)."""
    if not request.allow_import:
        importing = [c for c in chosen if c.imports_target]
        if request.checkers is not None and importing:
            raise GateError(f"--no-import and --checker {importing[0].name} contradict each other")
        chosen = [c for c in chosen if not c.imports_target]
    if not chosen:
        raise GateError("no checker chosen")
    return chosen


def _defaults(registry: Mapping[str, Checker]) -> tuple[str, ...]:
    """The names a request that names none runs: the registry's defaults, or every checker of a caller's own registry."""
    return default_names() if registry is CHECKERS else tuple(registry)


def checkers_for_sglang(
    chosen: Sequence[Checker], source: SglangSource | None, given: str | None
) -> tuple[tuple[Checker, ...], tuple[CheckerSkip, ...]]:
    """The chosen checkers that can judge the sglang checked, and those left out.

    A release or tree given with ``--sglang`` that the import system would
    not load cannot be judged by a checker that imports the target (the
    runtime checker): it is left out, unless it is all that was chosen (a
    :class:`GateError` then says to choose a static one)."""
    importing = tuple(c.name for c in chosen if c.imports_target)
    if source is None or given is None or not importing or _is_installed(source):
        return tuple(chosen), ()
    kept = tuple(c for c in chosen if not c.imports_target)
    if not kept:
        static = " and/or ".join(f"--checker {name}" for name in default_names() if not CHECKERS[name].imports_target)
        raise GateError(f"--sglang {given} is checked statically, without installing it: choose {static}")
    return kept, (CheckerSkip(importing, SkipReason.SGLANG_NOT_INSTALLED, source.release, tuple(c.name for c in kept)),)


def _source_notes(source: SglangSource | None, missing: str | None, given: str | None) -> list[str]:
    """What the reader should know about where the sglang checked came from."""
    if source is not None and missing is None and given is None and not _is_installed(source):
        return [messages.fetched_release_note(source.release)]
    return []


def run_stages(
    request: GateRequest,
    given: Sequence[str | None],
    keys: Sequence[str | None],
    recalled: Sequence[GateReport | None],
) -> tuple[list[GateReport], ReadSet]:
    """Each release's report, in the order given (those ``recalled`` from the
    run memo as they are), and what the runs read. The others run side by
    side (:func:`~spec_protocols.gate._releases_run.release_jobs`); a
    :class:`GateError` of any is the run's: the first, in the order given,
    once every started release has finished."""
    chosen = choose_checkers(request)
    todo = [n for n, report in enumerate(recalled) if report is None]
    workers = release_jobs(len(todo), checkers=len(chosen))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sglang-release") as pool:
        futures = {n: pool.submit(_Release(request, chosen, given[n], keys[n]).run) for n in todo}
        done = {n: _outcome(future, list(futures.values())) for n, future in futures.items()}
    reports = [report if report is not None else done[n][0] for n, report in enumerate(recalled)]
    read = ReadSet()
    for _, ran in done.values():
        read |= ran
    if request.baseline is not None:
        read |= ReadSet(frozenset({request.baseline}))
    return reports, read


def _outcome(future: Future[tuple[GateReport, ReadSet]], futures: Sequence[Future[tuple[GateReport, ReadSet]]]) -> tuple[GateReport, ReadSet]:
    """``future``'s result; on its error, the releases not yet started are cancelled first."""
    try:
        return future.result()
    except BaseException:
        for other in futures:
            other.cancel()
        raise


class _Clock:
    """The run's timings: each stage's own time (the cache's is ``"cache"``), and the total."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.timings: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str, cache: StageCache) -> Generator[None]:
        """Add the block's time, less what the cache spent in it, to ``name``."""
        t0 = time.perf_counter()
        before = cache.seconds
        yield
        self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t0 - (cache.seconds - before)

    def checker(self, outcome: CheckerOutcome, reused: bool) -> None:
        """A checker's time; a reused verdict cost this run nothing but the cache's own time."""
        label = f"{outcome.checker} (cached)" if reused else outcome.checker
        self.timings[label] = self.timings.get(label, 0.0) + (0.0 if reused else outcome.seconds)

    def finished(self) -> dict[str, float]:
        self.timings["total"] = time.perf_counter() - self.start
        return dict(self.timings)


@dataclass(frozen=True)
class _Against:
    """The sglang a release's run checks against, read: its source (None:
    none found, and why), the checkers that can judge it, its terms, the notes."""

    source: SglangSource | None
    missing: str | None
    checkers: tuple[Checker, ...]
    skipped: tuple[CheckerSkip, ...]
    terms: ReleaseTerms
    notes: tuple[str, ...]

    @property
    def extra_roots(self) -> list[Path]:
        """The folders the checkers search first: this sglang, not whichever
        they would find (unless it is an installed one in site-packages,
        which they find anyway; adding it would make pyright read all of it)."""
        source = self.source
        return [source.root] if source is not None and not in_installation(source.root) else []


def _against(chosen: Sequence[Checker], given: str | None, cache: StageCache) -> _Against:
    """The contract stage: the sglang checked, its contract in the protocols' terms."""
    source, missing = _sglang_to_check(given)
    notes = _source_notes(source, missing, given)
    checkers, skipped = checkers_for_sglang(chosen, source, given)
    notes += [messages.skip_note(skip) for skip in skipped]
    terms = release_terms(cache.contract(source, lambda: extract_contract(source)) if source is not None else None)
    notes.extend(terms.notes if missing is None else [messages.no_source_note(NEWEST, missing)])
    return _Against(source, missing, checkers, skipped, terms, tuple(notes))


@dataclass
class _Release:
    """One release's run of a request."""

    request: GateRequest
    chosen: tuple[Checker, ...]
    given: str | None
    #: The run memo's key (None: this run keeps no memo).
    key: str | None
    clock: _Clock = field(default_factory=_Clock)

    def run(self) -> tuple[GateReport, ReadSet]:
        # The contract and discovery read many of the same files (sglang's
        # scheduler, its server options): each is parsed once in the run.
        with parses_shared():
            return self._run()

    def _run(self) -> tuple[GateReport, ReadSet]:
        cache = open_cache(self.request.cache is not CachePolicy.OFF, cache_dir() / "verdicts")
        with self.clock.stage("contract", cache):
            against = _against(self.chosen, self.given, cache)
        roots = against.extra_roots
        # The embedded default is the installed sglang's workers, or --sglang's:
        # not those of a release fetched only because none is installed.
        targets = list(self.request.targets) or _default_targets(roots if self.given is not None else [])
        groups = _Groups(against.checkers, self.request.timeout, against.terms, roots[0] if roots else None, cache, self.clock)
        notes = list(against.notes)
        for group in _groups([resolve_target(t, roots) for t in targets]):
            notes.extend(groups.check(group, roots))
        if cache.enabled:
            self.clock.timings["cache"] = cache.seconds
        report = _report(against, groups, targets, notes, self.clock.timings)
        if against.missing is None and self.key is not None and all(c.distributed() for c in self.chosen):
            cache.remember(self.key, report)
        read = _read_set(groups.read, against.source.root if against.source is not None else None)
        return replace(report, timings=self.clock.finished()), read


def _report(against: _Against, groups: _Groups, targets: Sequence[str], notes: list[str], timings: Mapping[str, float]) -> GateReport:
    """One release's report: its results in order, its notes once each, what it checked against."""
    source, checkers = against.source, against.checkers
    results = groups.results if against.missing is None else [_without_source(result) for result in groups.results]
    importing_note = _importing_skipped_everything(groups.importing_outcomes, groups.site_checks)
    if importing_note is not None:
        notes.append(importing_note)
    return GateReport(
        tuple(sorted(results, key=lambda r: r.check)),
        tuple(c.name for c in checkers),
        timings,
        tuple(dict.fromkeys(notes)),
        {c.name: c.version() for c in checkers},
        SglangChecked(source.release, source.origin, str(source.root), against.terms.pin) if source is not None else None,
        tuple(targets),
        reused=tuple(c.name for c in checkers if c.name in groups.reused),
        skipped=against.skipped,
        lead=tuple(c.name for c in sorted(checkers, key=lambda c: (c.rank, c.name))),
    )


def _sglang_to_check(given: str | None) -> tuple[SglangSource | None, str | None]:
    """The sglang a run checks against, and why there is none.

    ``--sglang``'s, else the installed one, else the newest supported
    release, fetched into the cache as ``--sglang`` fetches it: a check
    without sglang's source would judge no release's terms (what
    ``BaseSpecWorker``'s defaults need of a draft worker, the keywords the
    scheduler constructs workers with) and pass what that release fails.
    When that fetch fails too (offline, an empty cache), the reason is
    returned, and every check of the run is ``unverified``
    (:func:`_without_source`), never a plain pass.
    """
    if given is not None:
        return resolve_sglang(given), None
    installed = resolve_sglang(None)
    if installed is not None:
        return installed, None
    try:
        return fetch_release(NEWEST), None
    except GateError as error:
        return None, str(error)


def _without_source(result: Result) -> Result:
    """``result`` of a run that had no sglang source: what passed is ``unverified``."""
    problem = Problem("gate", None, messages.NO_SOURCE, unverified=True)
    verdict = result.verdict if result.verdict is Verdict.FAIL else Verdict.UNVERIFIED
    return replace(result, verdict=verdict, problems=(*result.problems, problem))


def _groups(resolved: Sequence[ResolvedTarget]) -> list[list[ResolvedTarget]]:
    """The targets, without repeats, in groups that the checkers can take in one run.

    Two files that are the same module name (``a/plugin.py`` and
    ``b/plugin.py``) cannot be checked together: mypy and pyright would both
    read the first one found, and the runtime checker would import it once.
    They go to separate runs, so that neither changes the other's verdict.
    """
    groups: list[list[ResolvedTarget]] = []
    unique: list[ResolvedTarget] = []
    keys: set[tuple[tuple[tuple[str, str], ...], str | None]] = set()
    for target in resolved:
        key = (tuple(sorted((m, str(f)) for m, f in target.modules.items())), target.class_name)
        if key not in keys:  # the same target given twice is checked once
            keys.add(key)
            unique.append(target)
    for target in unique:
        for group in groups:
            files = {m: f for t in group for m, f in t.modules.items()}
            if all(files.get(m, f) == f for m, f in target.modules.items()):
                group.append(target)
                break
        else:
            groups.append([target])
    return groups


@dataclass
class _Groups:
    """The checks of one release, group by group of targets."""

    chosen: Sequence[Checker]
    timeout: float
    terms: ReleaseTerms
    sglang_root: Path | None
    cache: StageCache
    clock: _Clock
    results: list[Result] = field(default_factory=list[Result])
    #: The outcomes of the checkers that import the target.
    importing_outcomes: list[CheckerOutcome] = field(default_factory=list[CheckerOutcome])
    #: The checks of injection sites (expressions, which no import can judge).
    site_checks: set[Check] = field(default_factory=set[Check])
    #: The names of the checkers whose verdicts the cache gave, for any group.
    reused: set[str] = field(default_factory=set[str])
    #: Each dotted class reported so far, and its file (see _distinct).
    seen: dict[str, Path] = field(default_factory=dict[str, Path])
    #: Each group's targets as resolved, its discovery and the roots searched first.
    read: list[tuple[Sequence[ResolvedTarget], Discovery, Sequence[Path]]] = field(
        default_factory=list[tuple[Sequence[ResolvedTarget], Discovery, Sequence[Path]]]
    )

    def check(self, group: Sequence[ResolvedTarget], extra_roots: Sequence[Path]) -> list[str]:
        """Discover and check one group of targets; its notes."""
        with self.clock.stage("discovery", self.cache):
            built_in = self.terms.built_in
            found = self.cache.discovery(
                group, extra_roots, lambda read: discover(group, extra_roots, read=read, built_in=built_in), built_in
            )
        self.read.append((group, found, extra_roots))
        importers = [name for name in default_names() if CHECKERS[name].imports_target]
        require_importing(found, importing=any(c.imports_target for c in self.chosen), importers=importers)
        outcomes, reused, lacking = _run_checkers(found, self.chosen, self.timeout, self.terms, self.sglang_root, self.cache)
        self._record(found, outcomes, reused)
        lacking_notes = [messages.release_lacks_note(self.terms.release, lacking)] if lacking else []
        return [*found.notes, *_draft_factory_notes(found, self.terms), *lacking_notes]

    def _record(self, found: Discovery, outcomes: Sequence[CheckerOutcome], reused: frozenset[str]) -> None:
        """One group's outcomes: timed, combined into results, its sites and importing outcomes kept."""
        importing = {c.name for c in self.chosen if c.imports_target}
        for outcome in outcomes:
            self.clock.checker(outcome, outcome.checker in reused)
        self.reused |= reused
        self.importing_outcomes.extend(o for o in outcomes if o.checker in importing)
        self.site_checks.update(Check(s.target, ClassRole.INJECTED.protocol) for s in found.sites)
        classes = {c.dotted: c for c in found.classes}
        checks = sorted({check for o in outcomes for check in o.verdicts})
        require_found(found, len(checks))
        combined = with_remedies(combine(checks, outcomes, classes), classes, self.terms)
        self.results.extend(_distinct(combined, classes, self.seen))


def _draft_factory_notes(found: Discovery, terms: ReleaseTerms) -> list[str]:
    """A release without ``draft_worker_cls``, where the group injects draft classes."""
    injected = found.sites or any(ClassRole.INJECTED in c.roles for c in found.classes)
    return [messages.no_draft_factory_note(terms.release, OLDEST)] if terms.draft_factory_keywords is None and injected else []


def _distinct(results: Sequence[Result], classes: Mapping[str, DiscoveredClass], seen: dict[str, Path]) -> list[Result]:
    """Results of one group, renamed where an earlier group reported the same
    dotted class from another file (``plugin.Worker [b/plugin.py]``)."""
    renamed: list[Result] = []
    for result in results:
        cls = classes.get(result.check.target)
        target = result.check.target
        if cls is not None:
            first = seen.setdefault(target, cls.file)
            if first != cls.file:
                result = replace(result, check=Check(f"{target} [{cls.file}]", result.check.protocol))
        renamed.append(result)
    return renamed


_Applicable = list[tuple[CheckerOutcome, dict[Check, Verdict]]]


def _applicable_verdicts(outcomes: Sequence[CheckerOutcome]) -> _Applicable:
    """Each outcome with its verdicts on the checks it applies to; an outcome
    that applies to none is left out."""
    # A check a checker does not apply to (the replay's, where nothing registers) is no import it failed.
    pairs = [(o, {c: v for c, v in o.verdicts.items() if c not in o.inapplicable}) for o in outcomes]
    return [(o, verdicts) for o, verdicts in pairs if verdicts]


def _every_verdict_skipped(applicable: _Applicable) -> bool:
    return bool(applicable) and all(v is Verdict.SKIPPED for _, verdicts in applicable for v in verdicts.values())


def _skip_reasons(applicable: _Applicable, site_checks: Collection[Check]) -> list[str]:
    """Why the checks that are no injection site were skipped, each reason once, sorted."""
    return sorted({o.notes[check] for o, verdicts in applicable for check in verdicts if check in o.notes and check not in site_checks})


def _importing_skipped_everything(outcomes: Sequence[CheckerOutcome], site_checks: Collection[Check]) -> str | None:
    """One line, with the fix, when the checkers that import the target could
    not import anything (an injection site, an expression, is no import to make)."""
    applicable = _applicable_verdicts(outcomes)
    if not _every_verdict_skipped(applicable):
        return None
    reasons = _skip_reasons(applicable, site_checks)
    names = tuple(dict.fromkeys(o.checker for o, _ in applicable))
    return messages.importing_skipped_note(names, reasons[0]) if reasons else None


def _read_set(groups: Sequence[tuple[Sequence[ResolvedTarget], Discovery, Sequence[Path]]], sglang_root: Path | None) -> ReadSet:
    """What a release's verdicts depend on: the targets' files and packages,
    the local modules they import (outside site-packages and the standard
    library), and the sglang tree checked against (listed now and then)."""
    files: set[Path] = set()
    folders: set[Path] = set()
    for targets, found, extra_roots in groups:
        for target in targets:
            files.update(target.modules.values())
            folders.update(f.parent for f in target.modules.values() if f.name == "__init__.py")
            if Path(target.spec).is_dir():
                folders.add(Path(target.spec).resolve())
        files.update(_local_modules(found, extra_roots))
    slow = frozenset({sglang_root / "sglang"}) if sglang_root is not None else frozenset[Path]()
    local = {f for f in files if not (sglang_root is not None and f.resolve().is_relative_to(sglang_root / "sglang"))}
    return ReadSet(frozenset(local), frozenset(folders), slow)


def _local_modules(found: Discovery, extra_roots: Sequence[Path]) -> set[Path]:
    """The files of the modules a discovery read or saw imported, outside site-packages and the standard library."""
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    path = search_path([*extra_roots, *found.search_roots])
    located = [find_module_file(name, path) for name in sorted(found.imported_modules)]
    return {
        file
        for file in [*found.source_modules.values(), *(f for f in located if f is not None)]
        if not in_installation(file) and not file.resolve().is_relative_to(stdlib)
    }


def keep_crash(crashed: CheckerCrashed, check_input: CheckInput) -> Path:
    """A copy of the run's work folder (the harness, each checker's
    configuration) and of what the crashed checker printed, for a bug report:
    ``crashes/<checker>-<time>`` in the cache folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = cache_dir() / "crashes" / f"{crashed.checker}-{stamp}-{os.getpid()}"
    try:
        if check_input.static is not None:
            shutil.copytree(check_input.static.workdir, folder, dirs_exist_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{crashed.checker}-output.txt").write_text(crashed.output, encoding="utf-8")
    except OSError:
        pass  # the crash is reported either way; the folder is a courtesy
    return folder


def _run_checkers(
    found: Discovery,
    chosen: Sequence[Checker],
    timeout: float,
    terms: ReleaseTerms,
    sglang_root: Path | None,
    cache: StageCache,
) -> tuple[list[CheckerOutcome], frozenset[str], Mapping[str, str]]:
    """Every chosen checker on one discovery, in parallel, except those whose
    verdicts the cache holds; outcomes in report order, the names reused, and
    the protocols' sglang names the release lacks that the harness wrote as ``Any``."""
    adapters = list(chosen)
    static = any(a.reads_harness for a in adapters)
    # What each static checker takes as addressed to it is blanked in the shadows of injection sites.
    directives = tuple(a.dialect.directive for a in adapters if a.reads_harness and a.dialect is not None)
    with prepare(found, timeout=timeout, static=static, terms=terms, sglang_root=sglang_root, directives=directives) as check_input:
        lookup = cache.look_up(adapters, check_input)
        ran = _in_parallel([a for a in adapters if a.name not in lookup.hits], adapters, check_input)
        lacking: Mapping[str, str] = check_input.static.harness.lacking if check_input.static is not None else {}
    for outcome in ran.values():
        cache.store(lookup, outcome)
    outcomes = [lookup.hits[a.name] if a.name in lookup.hits else ran[a.name] for a in adapters]
    stamped = [replace(outcome, version=adapter.version()) for adapter, outcome in zip(adapters, outcomes, strict=True)]
    return stamped, frozenset(lookup.hits), lacking


def _in_parallel(to_run: Sequence[Checker], every: Sequence[Checker], check_input: CheckInput) -> dict[str, CheckerOutcome]:
    """Each of ``to_run`` on ``check_input``, at once; a crash keeps the run's folder and names the others."""
    with ThreadPoolExecutor(max_workers=max(1, len(to_run))) as pool:
        futures = {checker.name: pool.submit(checker.run, check_input) for checker in to_run}
        try:
            return {name: future.result() for name, future in futures.items()}
        except CheckerCrashed as crashed:
            others = tuple(c.name for c in every if c.name != crashed.checker)
            raise crashed.keeping(str(keep_crash(crashed, check_input)), others) from None
