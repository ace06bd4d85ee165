"""``run_gate``: the whole pipeline, for the CLI, the pytest plugin and scripts.

    sglang source -> contract -> terms
    targets -> discovery -> harness (on the terms) -> checkers (in parallel) -> verdicts -> report

The release checked against is the installed sglang's, or ``sglang=``'s (a
release fetched into the cache, or a source tree): its contract is read from
its own source, and every check is on that release's terms
(:mod:`spec_protocols.gate._contract._terms`).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Collection, Generator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from spec_protocols._releases import NEWEST, OLDEST
from spec_protocols.gate._cache import VerdictCache, open_cache
from spec_protocols.gate._checkers import CHECKERS, DEFAULT_CHECKERS, Checker
from spec_protocols.gate._contract import (
    Contract,
    SglangSource,
    extract_contract,
    fetch_release,
    installed_source,
    resolve_sglang,
)
from spec_protocols.gate._contract import ReleaseTerms, release_terms
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
    ResolvedTarget,
    Result,
    SglangChecked,
    SkipReason,
    Verdict,
)
from spec_protocols.gate._paths import cache_dir, in_installation, search_path
from spec_protocols.gate._reports import messages
from spec_protocols.gate._source import find_module_file
from spec_protocols.gate._verdicts import combine

__all__ = ["DEFAULT_TARGET", "checkers_for_sglang", "choose_checkers", "default_targets", "run_gate"]

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


def run_gate(
    targets: Sequence[str],
    *,
    checkers: Sequence[Checker] = DEFAULT_CHECKERS,
    baseline: Path | None = None,
    timeout: float = 600.0,
    allow_import: bool = True,
    sglang: str | None = None,
    cache: bool = True,
) -> GateReport:
    """Check ``targets`` with ``checkers``; raise :class:`GateError` on bad input.

    ``checkers``: the checker objects to run (default: the registry's, all
    three; :func:`~spec_protocols.gate._checkers.checkers_named` picks them by
    name; a test passes fakes). ``allow_import=False`` refuses a checker that
    imports the target (the runtime checker), so no target code runs.
    ``sglang``: check against that release (fetched into the cache) or the
    source tree at that path rather than the installed sglang; static checkers
    only (a checker that imports is left out, with a note, and in
    :attr:`GateReport.skipped`). ``cache=False`` (or
    ``$SPEC_PROTOCOLS_NO_CACHE``) neither reuses nor stores verdicts,
    contracts or discoveries (:mod:`spec_protocols.gate._cache`); the
    checkers whose verdicts were reused are :attr:`GateReport.reused`, and
    appear in the timings as ``"NAME (cached)"``, the cache's own cost (keys,
    look-ups, stores, for every stage) as ``"cache"``, not in ``"contract"``
    or ``"discovery"``.
    """
    clock = _Clock()
    chosen = choose_checkers(checkers, allow_import=allow_import)
    verdict_cache = open_cache(cache, cache_dir() / "verdicts")
    # A request whose every input is as an earlier run of it found them is
    # that run's report, read before any stage runs (gate/_cache/_runs.py).
    if verdict_cache is not None:
        recalled = verdict_cache.recall(targets, chosen, allow_import=allow_import, sglang=sglang)
        if recalled is not None:
            clock.timings.update(recalled.timings)
            return _finished(recalled, baseline, clock)
    with clock.stage("contract", verdict_cache):
        source, missing = _sglang_to_check(sglang)
        notes = _source_notes(source, missing, sglang)
        chosen, skipped = checkers_for_sglang(chosen, source, sglang)
        notes += [messages.skip_note(skip) for skip in skipped]
        terms = release_terms(_contract(source, verdict_cache))
        notes.extend(terms.notes if missing is None else [messages.no_source_note(NEWEST, missing)])
    # The checkers must read this sglang, not whichever they would find:
    # searched first, unless it is an installed one in site-packages (which
    # they find anyway; adding it would make pyright read all of it).
    extra_roots = [source.root] if source is not None and not in_installation(source.root) else []
    # The embedded default is the installed sglang's workers, or --sglang's:
    # not those of a release fetched only because none is installed.
    checked_targets = list(targets) or _default_targets(extra_roots if sglang is not None else [])
    run = _Run(chosen, timeout, terms, extra_roots[0] if extra_roots else None, verdict_cache, clock)
    for group in _groups([resolve_target(t, extra_roots) for t in checked_targets]):
        notes.extend(run.check(group, extra_roots))
    results = run.results if missing is None else [_without_source(result) for result in run.results]
    runtime_note = _runtime_skipped_everything(run.importing_outcomes, run.site_checks)
    if runtime_note is not None:
        notes.append(runtime_note)
    if verdict_cache is not None:
        clock.timings["cache"] = verdict_cache.seconds
    report = GateReport(
        tuple(sorted(results, key=lambda r: r.check)),
        tuple(c.name for c in chosen),
        clock.timings,
        tuple(dict.fromkeys(notes)),
        {c.name: c.version() for c in chosen},
        SglangChecked(source.release, source.origin, str(source.root), terms.pin) if source is not None else None,
        tuple(checked_targets),
        reused=tuple(c.name for c in chosen if c.name in run.reused),
        skipped=skipped,
    )
    if verdict_cache is not None and missing is None:
        verdict_cache.remember(report)
    return _finished(report, baseline, clock)


def _finished(report: GateReport, baseline: Path | None, clock: _Clock) -> GateReport:
    """``report`` with ``baseline`` applied, and the run's timings."""
    if baseline is not None:
        from spec_protocols.gate._baseline import apply_baseline, load_baseline

        report = apply_baseline(report, load_baseline(baseline))
    return replace(report, timings=clock.finished())


def choose_checkers(checkers: Sequence[Checker], *, allow_import: bool) -> tuple[Checker, ...]:
    """The checkers a run uses: each name once (the first given), in report
    order (the registry's, then any other in the order given); a
    :class:`GateError` for none, and for one that imports the target when
    ``allow_import`` is false (``--no-import``)."""
    order = {name: n for n, name in enumerate(CHECKERS)}
    unique = {c.name: c for c in reversed(checkers)}
    given = [c.name for c in checkers]
    chosen = tuple(sorted(unique.values(), key=lambda c: (order.get(c.name, len(order)), given.index(c.name))))
    if not chosen:
        raise GateError("no checker chosen")
    importing = [c for c in chosen if c.imports_target]
    if not allow_import and importing:
        raise GateError(f"--no-import forbids the {importing[0].name} checker, which imports the target")
    return chosen


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
        raise GateError(
            f"--sglang {given} is checked statically, without installing it: choose --checker mypy and/or "
            "--checker pyright"
        )
    return kept, (CheckerSkip(importing, SkipReason.SGLANG_NOT_INSTALLED, source.release),)


def _source_notes(source: SglangSource | None, missing: str | None, given: str | None) -> list[str]:
    """What the reader should know about where the sglang checked came from."""
    if source is not None and missing is None and given is None and not _is_installed(source):
        return [messages.fetched_release_note(source.release)]
    return []


class _Clock:
    """The run's timings: each stage's own time (the cache's is ``"cache"``), and the total."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.timings: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str, verdict_cache: VerdictCache | None) -> Generator[None]:
        """Add the block's time, less what the cache spent in it, to ``name``."""
        t0 = time.perf_counter()
        before = verdict_cache.seconds if verdict_cache is not None else 0.0
        yield
        spent = verdict_cache.seconds - before if verdict_cache is not None else 0.0
        self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t0 - spent

    def checker(self, outcome: CheckerOutcome, reused: bool) -> None:
        """A checker's time; a reused verdict cost this run nothing but the cache's own time."""
        label = f"{outcome.checker} (cached)" if reused else outcome.checker
        self.timings[label] = self.timings.get(label, 0.0) + (0.0 if reused else outcome.seconds)

    def finished(self) -> dict[str, float]:
        self.timings["total"] = time.perf_counter() - self.start
        return dict(self.timings)


@dataclass
class _Run:
    """The checks of one run, group by group of targets."""

    chosen: Sequence[Checker]
    timeout: float
    terms: ReleaseTerms
    sglang_root: Path | None
    verdict_cache: VerdictCache | None
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

    def check(self, group: Sequence[ResolvedTarget], extra_roots: Sequence[Path]) -> list[str]:
        """Discover and check one group of targets; its notes."""
        with self.clock.stage("discovery", self.verdict_cache):
            found = _discovery(group, extra_roots, self.verdict_cache)
        require_importing(found, importing=any(c.imports_target for c in self.chosen))
        notes = list(found.notes)
        injected = found.sites or any(ClassRole.INJECTED in c.roles for c in found.classes)
        if self.terms.draft_factory_keywords is None and injected:
            notes.append(messages.no_draft_factory_note(self.terms.release, OLDEST))
        outcomes, reused = _run_checkers(found, self.chosen, self.timeout, self.terms, self.sglang_root, self.verdict_cache)
        importing = {c.name for c in self.chosen if c.imports_target}
        for outcome in outcomes:
            self.clock.checker(outcome, outcome.checker in reused)
        self.reused |= reused
        self.importing_outcomes.extend(o for o in outcomes if o.checker in importing)
        self.site_checks.update(Check(s.target, ClassRole.INJECTED.protocol) for s in found.sites)
        classes = {c.dotted: c for c in found.classes}
        checks = sorted({check for o in outcomes for check in o.verdicts})
        require_found(found, len(checks))
        self.results.extend(_distinct(combine(checks, outcomes, classes), classes, self.seen))
        return notes


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


def _contract(source: SglangSource | None, verdict_cache: VerdictCache | None) -> Contract | None:
    """``source``'s contract, read from its files, or as the cache stored it while they are unchanged."""
    if source is None:
        return None
    if verdict_cache is None:
        return extract_contract(source)
    return verdict_cache.contract(source, lambda: extract_contract(source))


def _discovery(group: Sequence[ResolvedTarget], extra_roots: Sequence[Path], verdict_cache: VerdictCache | None) -> Discovery:
    """What to check in ``group``, found by reading source, or as the cache stored it while nothing it read changed."""
    if verdict_cache is None:
        return discover(group, extra_roots)
    return verdict_cache.discovery(group, extra_roots, lambda read: discover(group, extra_roots, read=read))


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


def _runtime_skipped_everything(outcomes: Sequence[CheckerOutcome], site_checks: Collection[Check]) -> str | None:
    """One line, with the fix, when the runtime checker could not import
    anything (an injection site, an expression, is no import to make)."""
    verdicts = [v for o in outcomes for v in o.verdicts.values()]
    if not verdicts or any(v is not Verdict.SKIPPED for v in verdicts):
        return None
    reasons = sorted({note for o in outcomes for check, note in o.notes.items() if check not in site_checks})
    return messages.runtime_skipped_note(reasons[0]) if reasons else None


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
    verdict_cache: VerdictCache | None,
) -> tuple[list[CheckerOutcome], frozenset[str]]:
    """Every chosen checker on one discovery, in parallel, except those whose
    verdicts the cache holds; outcomes in report order, and the names reused."""
    adapters = list(chosen)
    static = any(a.reads_harness for a in adapters)
    with prepare(found, timeout=timeout, static=static, terms=terms, sglang_root=sglang_root) as check_input:
        lookup = verdict_cache.look_up(adapters, check_input) if verdict_cache is not None else None
        reused = lookup.hits if lookup is not None else {}
        to_run = [adapter for adapter in adapters if adapter.name not in reused]
        with ThreadPoolExecutor(max_workers=max(1, len(to_run))) as pool:
            futures = {adapter.name: pool.submit(adapter.run, check_input) for adapter in to_run}
            try:
                ran = {name: future.result() for name, future in futures.items()}
            except CheckerCrashed as crashed:
                others = tuple(a.name for a in adapters if a.name != crashed.checker)
                raise crashed.keeping(str(keep_crash(crashed, check_input)), others) from None
    if verdict_cache is not None and lookup is not None:
        for outcome in ran.values():
            verdict_cache.store(lookup, outcome)
    outcomes = [reused[a.name] if a.name in reused else ran[a.name] for a in adapters]
    stamped = [replace(outcome, version=adapter.version()) for adapter, outcome in zip(adapters, outcomes, strict=True)]
    return stamped, frozenset(reused)
