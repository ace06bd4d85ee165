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
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from spec_protocols._releases import NEWEST, OLDEST
from spec_protocols.gate._cache import VerdictCache, open_cache
from spec_protocols.gate._checkers import CHECKERS
from spec_protocols.gate._contract import (
    Contract,
    SglangSource,
    extract_contract,
    fetch_release,
    installed_source,
    resolve_sglang,
)
from spec_protocols.gate._contract._terms import ReleaseTerms, release_terms
from spec_protocols.gate._discovery import discover, resolve_target
from spec_protocols.gate._harness import CheckInput, prepare
from spec_protocols.gate._model import (
    CHECKER_NAMES,
    Check,
    CheckerCrashed,
    CheckerOutcome,
    ClassRole,
    DiscoveredClass,
    Discovery,
    GateError,
    GateReport,
    Problem,
    ResolvedTarget,
    Result,
    SglangChecked,
    Verdict,
)
from spec_protocols.gate._paths import cache_dir, in_installation, search_path
from spec_protocols.gate._source import find_module_file
from spec_protocols.gate._verdicts import combine

__all__ = ["DEFAULT_TARGET", "default_targets", "run_gate"]

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
    checkers: Sequence[str] = CHECKER_NAMES,
    baseline: Path | None = None,
    timeout: float = 600.0,
    allow_import: bool = True,
    sglang: str | None = None,
    cache: bool = True,
) -> GateReport:
    """Check ``targets`` with ``checkers``; raise :class:`GateError` on bad input.

    ``allow_import=False`` refuses the runtime checker, so no target code runs.
    ``sglang``: check against that release (fetched into the cache) or the
    source tree at that path rather than the installed sglang; static checkers
    only (the runtime checker, which imports, is skipped with a note).
    ``cache=False`` (or ``$SPEC_PROTOCOLS_NO_CACHE``) neither reuses nor stores
    verdicts, contracts or discoveries (:mod:`spec_protocols.gate._cache`); a
    reused checker appears in the timings as ``"NAME (cached)"``, and the
    cache's own cost (keys, look-ups, stores, for every stage) as ``"cache"``,
    not in ``"contract"`` or ``"discovery"``.
    """
    start = time.perf_counter()
    unknown = [c for c in checkers if c not in CHECKER_NAMES]
    if unknown:
        raise GateError(f"unknown checker {unknown[0]!r}; choose from {', '.join(CHECKER_NAMES)}")
    chosen = [c for c in CHECKER_NAMES if c in checkers]
    if not chosen:
        raise GateError("no checker chosen")
    importing = [c for c in chosen if CHECKERS[c].imports_target]
    if not allow_import and importing:
        raise GateError(f"--no-import forbids the {importing[0]} checker, which imports the target")
    timings: dict[str, float] = {}
    notes: list[str] = []
    verdict_cache = open_cache(cache, cache_dir() / "verdicts")

    t0 = time.perf_counter()
    source, missing = _sglang_to_check(sglang)
    if source is not None and missing is None and sglang is None and not _is_installed(source):
        notes.append(
            f"no sglang installed and no --sglang: checked against the newest supported release, sglang "
            f"{source.release}, read from its source; name another with --sglang"
        )
    # Not importable: a release or tree given with --sglang that the import
    # system would not load. The runtime checker cannot judge it.
    elsewhere = source is not None and sglang is not None and not _is_installed(source)
    if elsewhere and importing:
        assert source is not None
        chosen = [c for c in chosen if c not in importing]
        if not chosen:
            raise GateError(
                f"--sglang {sglang} is checked statically, without installing it: choose --checker mypy and/or "
                "--checker pyright"
            )
        notes.append(
            f"{', '.join(importing)} checker: skipped: --sglang reads sglang {source.release}'s source without "
            "installing it, and the runtime checker can only import the installed sglang; mypy and pyright decided"
        )
    cache_before = verdict_cache.seconds if verdict_cache is not None else 0.0
    contract = _contract(source, verdict_cache)
    terms = release_terms(contract)
    notes.extend(terms.notes if missing is None else [_no_source_note(missing)])
    timings["contract"] = time.perf_counter() - t0 - _cache_spent(verdict_cache, cache_before)
    # The checkers must read this sglang, not whichever they would find:
    # searched first, unless it is an installed one in site-packages (which
    # they find anyway; adding it would make pyright read all of it).
    extra_roots = [source.root] if source is not None and not in_installation(source.root) else []

    # The embedded default is the installed sglang's workers, or --sglang's:
    # not those of a release fetched only because none is installed.
    default_roots = extra_roots if sglang is not None else []
    checked_targets = list(targets) or _default_targets(default_roots)
    groups = _groups([resolve_target(t, extra_roots) for t in checked_targets])
    results: list[Result] = []
    runtime_outcomes: list[CheckerOutcome] = []
    seen: dict[str, Path] = {}
    for group in groups:
        t0 = time.perf_counter()
        cache_before = verdict_cache.seconds if verdict_cache is not None else 0.0
        found = _discovery(group, extra_roots, verdict_cache)
        spent = time.perf_counter() - t0 - _cache_spent(verdict_cache, cache_before)
        timings["discovery"] = timings.get("discovery", 0.0) + spent
        notes.extend(found.notes)
        classes = {c.dotted: c for c in found.classes}
        if terms.draft_factory_keywords is None and (found.sites or any(ClassRole.INJECTED in c.roles for c in found.classes)):
            notes.append(
                f"sglang {terms.release} has no draft_worker_cls (build_draft_tp_worker takes none before "
                f"{OLDEST}): the injected draft worker classes are checked with the newest release's keywords"
            )
        outcomes, reused = _run_checkers(
            found, chosen, timeout, terms, extra_roots[0] if extra_roots else None, verdict_cache
        )
        for outcome in outcomes:
            # A reused verdict cost this run nothing but the cache's own time.
            cached = outcome.checker in reused
            label = f"{outcome.checker} (cached)" if cached else outcome.checker
            timings[label] = timings.get(label, 0.0) + (0.0 if cached else outcome.seconds)
        runtime_outcomes.extend(o for o in outcomes if CHECKERS[o.checker].imports_target)
        checks = sorted({check for o in outcomes for check in o.verdicts})
        results.extend(_distinct(combine(checks, outcomes, classes), classes, seen))
    if missing is not None:
        results = [_without_source(result) for result in results]
    runtime_note = _runtime_skipped_everything(runtime_outcomes)
    if runtime_note is not None:
        notes.append(runtime_note)
    if verdict_cache is not None:
        timings["cache"] = verdict_cache.seconds
    versions = {name: CHECKERS[name].version() for name in chosen}
    checked = (
        SglangChecked(source.release, source.origin, str(source.root), terms.pin) if source is not None else None
    )
    report = GateReport(
        tuple(sorted(results, key=lambda r: r.check)),
        tuple(chosen),
        timings,
        tuple(dict.fromkeys(notes)),
        versions,
        checked,
        tuple(checked_targets),
    )
    if baseline is not None:
        from spec_protocols.gate._baseline import apply_baseline, load_baseline

        report = apply_baseline(report, load_baseline(baseline))
    timings["total"] = time.perf_counter() - start
    return replace(report, timings=dict(timings))


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


#: Why a check of a run without sglang's source is unverified (the run's note says why there is none).
_NO_SOURCE = (
    "not checked on any sglang release's terms (no sglang source: see the note below): the members its scheduler "
    "calls, the keywords it constructs workers with, what BaseSpecWorker's defaults need of a draft worker"
)


def _no_source_note(missing: str) -> str:
    return (
        f"no sglang source: none is installed, no --sglang was given, and the newest supported release, {NEWEST}, "
        f"could not be fetched ({missing}); every check is unverified. Install sglang, pass --sglang PATH (a "
        "source tree or a wheel), or run once where the package index is reachable (the release is kept in the "
        "cache)"
    )


def _without_source(result: Result) -> Result:
    """``result`` of a run that had no sglang source: what passed is ``unverified``."""
    problem = Problem("gate", None, _NO_SOURCE, unverified=True)
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


def _cache_spent(verdict_cache: VerdictCache | None, before: float) -> float:
    """The cache's own time since ``before`` (reported as ``"cache"``, not as the stage's)."""
    return verdict_cache.seconds - before if verdict_cache is not None else 0.0


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


def _runtime_skipped_everything(outcomes: Sequence[CheckerOutcome]) -> str | None:
    """One line, with the fix, when the runtime checker could not import anything."""
    verdicts = [v for o in outcomes for v in o.verdicts.values()]
    if not verdicts or any(v is not Verdict.SKIPPED for v in verdicts):
        return None
    reasons = sorted({note for o in outcomes for note in o.notes.values()})
    sites_only = all("an expression, not a class" in r for r in reasons)
    if sites_only:
        return None
    first = next((r for r in reasons if "an expression, not a class" not in r), reasons[0] if reasons else "")
    return (
        f"runtime checker: skipped every check ({first}); the static checkers decided alone. To run it, make the "
        "target importable in this environment (for sglang on CPU: pip install -r requirements/sglang-cpu.txt from "
        "a spec-protocols checkout), or pass --no-import to say you meant a static-only run"
    )


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
    chosen: Sequence[str],
    timeout: float,
    terms: ReleaseTerms,
    sglang_root: Path | None,
    verdict_cache: VerdictCache | None,
) -> tuple[list[CheckerOutcome], frozenset[str]]:
    """Every chosen checker on one discovery, in parallel, except those whose
    verdicts the cache holds; outcomes in report order, and the names reused."""
    adapters = [CHECKERS[name] for name in chosen]
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
                others = tuple(name for name in chosen if name != crashed.checker)
                raise crashed.keeping(str(keep_crash(crashed, check_input)), others) from None
    if verdict_cache is not None and lookup is not None:
        for outcome in ran.values():
            verdict_cache.store(lookup, outcome)
    outcomes = [reused[a.name] if a.name in reused else ran[a.name] for a in adapters]
    stamped = [replace(outcome, version=adapter.version()) for adapter, outcome in zip(adapters, outcomes, strict=True)]
    return stamped, frozenset(reused)
