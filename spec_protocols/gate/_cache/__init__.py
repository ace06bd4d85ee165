"""The verdict cache: a checker's outcome, reused while nothing it depends on changed.

The pipeline asks :meth:`VerdictCache.look_up` before the checkers run; a
checker whose key has an entry is not run, and its stored
:class:`~spec_protocols.gate._model.CheckerOutcome` stands for it (the report
is the same byte for byte, timings aside). A checker that runs has its
outcome stored under its key (:meth:`VerdictCache.store`).

The key of one checker on one :class:`~spec_protocols.gate._harness.CheckInput`
is the sha256 of:

* the entry format, the checker's name and ``version()``;
* the check input itself, canonically written (:func:`._codec.canonical`),
  every field of it, generically: the discovery (classes, roles, bases,
  injection sites, source modules and their paths, search roots, imported
  modules), the release terms (members, keywords, needs, pin), the folder of
  ``--sglang``; for a checker that reads the harness, also the harness text
  and line tags, the stubbed modules and the injection-site shadows. Only
  the timeout is left out (a checker that runs out of time raises; nothing
  is stored), and per-run folders are written by role (``<run>``,
  ``<overlay>``, ``<shadow>``), since their names change every run;
* for a checker that reads the harness, the content of the stub overlay and
  of the shadow tree it reads;
* the content of every file of this package and of its stubs (a gate
  upgrade, or anyone's edit to the gate, invalidates every entry);
* the content of the import closure of the code under check
  (:mod:`._fingerprint`): sglang's whole package (the installed one, or
  ``--sglang``'s), each package under check, and every package they import
  from outside site-packages, transitively;
* the installed distributions (names, versions, RECORD stat; ``.pth``
  files), the interpreter (path, version, platform), and the environment
  variables of :data:`._fingerprint.ENVIRONMENT_PREFIXES`;
* for a checker that imports the target, the current directory (``python
  -m`` puts it on the import path).

Two stages before the checkers are memoised the same way, so that a warm
run does not read sglang and the targets again (:meth:`VerdictCache.contract`,
:meth:`VerdictCache.discovery`):

* the contract, keyed on the content of sglang's whole package (the tree the
  extractor reads below), the :class:`SglangSource` itself (release, origin,
  folder), this package's content, the stage format and the interpreter
  (``ast`` is the running Python's);
* a discovery, keyed first on the targets as resolved (every module and
  file), the content of their files, the roots and the whole search path,
  this package, the installed distributions and the interpreter; then on
  what every module discovery read or looked for resolves to now: each
  top-level name is located again, and what it names must have the content
  recorded (sglang, this package, the packages under check and anything
  outside site-packages, by content; the standard library by the
  interpreter; other installed packages by the distributions), or be absent
  as it was. A discovery is stored only when each file it parsed has, in
  the digests taken after it ran, the content it parsed.

What the key does not cover is in docs/performance.md ("The verdict cache").
Deleting the cache folder is always safe; an entry that cannot be read, is
cut short, or does not decode into an outcome is ignored (and overwritten
by the next run), and entries are written atomically.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from spec_protocols.gate._cache import _runs
from spec_protocols.gate._cache._runs import NO_CACHE_ENV
from spec_protocols.gate._cache._fingerprint import (
    Signature,
    StatMemo,
    Tree,
    distributions,
    environment,
    in_standard_library,
    interpreter,
    locate,
    locations,
    sealed,
    static_environment,
    static_interpreter,
    unsealed,
    write_json,
)
from spec_protocols.gate._codec import canonical, decode, encode
from spec_protocols.gate._model import CheckerOutcome, Discovery, GateError, GateReport, ResolvedTarget
from spec_protocols.gate._paths import in_installation, search_path

if TYPE_CHECKING:
    # Types only: the stages themselves are imported where a run uses them,
    # so that the run memo (._runs) and the CLI's first look cost no stage.
    from spec_protocols.gate._checkers import Checker
    from spec_protocols.gate._contract import Contract, SglangSource
    from spec_protocols.gate._discovery import SourceReads
    from spec_protocols.gate._harness import CheckInput, StaticInput

__all__ = ["NO_CACHE_ENV", "Lookup", "NoCache", "StageCache", "VerdictCache", "open_cache"]


# Bump when an entry's layout or the key's meaning changes: old entries are then never read.
# 2: entries written by the one codec (spec_protocols.gate._codec): a
# Mapping[str, ...] is a JSON object (it was a list of pairs), and every entry
# is one of the typed envelopes below.
# 3: every entry carries the sha256 of its own content (_fingerprint.seal).
_FORMAT = 3
# ... and these when a stored contract's or discovery's meaning changes
# without this package's text changing (its content is in their keys).
# 2: contracts carry their hooks (getattr/hasattr members and their uses), each use its scheduler branch, and the registration flag that selects the branch.
_CONTRACT_FORMAT = 2
_DISCOVERY_FORMAT = 1

#: What discovers a run's targets for :meth:`StageCache.discovery` (given what to record its reads in, or None).
Discover = Callable[["SourceReads | None"], Discovery]


@dataclass(frozen=True, slots=True)
class _OutcomeEntry:
    """A checker's stored outcome, as an entry file holds it."""

    format: int
    key: str
    checker: str
    outcome: CheckerOutcome


@dataclass(frozen=True, slots=True)
class _DiscoveryEntry:
    """A stored discovery, and what each top-level name it read or looked for resolved to."""

    format: int
    key: str
    stage: Literal["discovery"]
    #: top-level name -> None (absent), "built-in", "stdlib", "installed", or [[folder or file, digest], ...].
    reads: Mapping[str, object]
    value: Discovery


class _Entry(Protocol):
    @property
    def format(self) -> int: ...

    @property
    def key(self) -> str: ...


_E = TypeVar("_E", bound=_Entry)


@dataclass(slots=True)
class Lookup:
    """The keys of one group's checkers and the outcomes found under them."""

    #: checker name -> key; a checker without one (its input could not be keyed) is never cached.
    keys: dict[str, str] = field(default_factory=dict[str, str])
    #: checker name -> the stored outcome, for the checkers not to run.
    hits: dict[str, CheckerOutcome] = field(default_factory=dict[str, CheckerOutcome])


class StageCache(Protocol):
    """What a run asks of the cache, stage by stage: the verdict cache, or :class:`NoCache`."""

    #: Whether anything is reused or stored (the report's timings show the cache's cost only then).
    enabled: bool
    #: Seconds spent on the cache this run.
    seconds: float

    def contract(self, source: SglangSource, extract: Callable[[], Contract]) -> Contract: ...
    def discovery(
        self, targets: Sequence[ResolvedTarget], extra_roots: Sequence[Path], discover: Discover, built_in: Collection[str] = ()
    ) -> Discovery: ...
    def look_up(self, checkers: Sequence[Checker], check_input: CheckInput) -> Lookup: ...
    def store(self, lookup: Lookup, outcome: CheckerOutcome) -> None: ...
    def remember(self, key: str, report: GateReport) -> None: ...


class NoCache:
    """A cache that holds nothing: every stage runs, nothing is stored (``--no-cache``)."""

    enabled = False
    seconds = 0.0

    def contract(self, source: SglangSource, extract: Callable[[], Contract]) -> Contract:
        return extract()

    def discovery(
        self, targets: Sequence[ResolvedTarget], extra_roots: Sequence[Path], discover: Discover, built_in: Collection[str] = ()
    ) -> Discovery:
        return discover(None)

    def look_up(self, checkers: Sequence[Checker], check_input: CheckInput) -> Lookup:
        return Lookup()

    def store(self, lookup: Lookup, outcome: CheckerOutcome) -> None:
        pass

    def remember(self, key: str, report: GateReport) -> None:
        pass


def open_cache(requested: bool, root: Path) -> StageCache:
    """The cache under ``root``; :class:`NoCache` when ``requested`` is False or ``$SPEC_PROTOCOLS_NO_CACHE`` is set."""
    if not requested or os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return NoCache()
    return VerdictCache(root)


class VerdictCache:
    """Entries under ``root/entries``, the stat memos under ``root/memo``."""

    enabled = True

    def __init__(self, root: Path) -> None:
        self.root = root
        #: Seconds spent on the cache this run (digests, reads, writes), for the report's timings.
        self.seconds = 0.0
        self._memo = StatMemo(root / "memo")
        self._common: dict[str, object] | None = None
        # Within one run each import closure is worked out once, whichever group or stage asks.
        self._closures: dict[tuple[object, ...], dict[str, object]] = {}
        # The run memo (._runs): the search-path entries witnessed, the stage
        # entries read or written, and whether every stage was keyed and
        # stored (a run that was not keeps no memo).
        self._searched: dict[str, Signature] = {}
        self._searched_racy = False
        self._used: set[Path] = set()
        self.complete = True
        self._witness_search(search_path(()))

    def remember(self, key: str, report: GateReport) -> None:
        """Keep ``report`` as the run memo under ``key``, when every stage was keyed and stored."""
        if not self.complete or self._memo.racy or self._searched_racy:
            return
        start = time.perf_counter()
        _runs.remember(self.root, key, report, {**self._memo.witnesses, **self._searched}, self._used)
        self.seconds += time.perf_counter() - start

    def _witness_search(self, search: Sequence[str]) -> None:
        """Witness the search-path entries not witnessed yet (before any lookup on them)."""
        fresh = [entry for entry in search if os.path.abspath(entry) not in self._searched]
        found, racy = _runs.search_witnesses(fresh)
        self._searched.update(found)
        self._searched_racy = self._searched_racy or racy

    def contract(self, source: SglangSource, extract: Callable[[], Contract]) -> Contract:
        """``source``'s contract: the stored one while sglang's package and
        this package are unchanged, else ``extract()``'s (then stored)."""
        start = time.perf_counter()
        try:
            key: str | None = _hash(
                {
                    "format": _FORMAT,
                    "stage": "contract",
                    "stage_format": _CONTRACT_FORMAT,
                    "package": self._package(),
                    # ast is the running Python's; where it is installed does not matter.
                    "interpreter": static_interpreter(),
                    "source": canonical(source),
                    # The extractor reads sglang/srt only; the whole package is
                    # keyed (and its digest is the checkers' key's too).
                    "sglang": self._memo.tree(source.root / "sglang").digest,
                }
            )
        except (GateError, OSError, TypeError):
            key = None
            self.complete = False
        from spec_protocols.gate._cache._contract_entry import ContractEntry

        stored = self._read(key, ContractEntry) if key is not None else None
        self.seconds += time.perf_counter() - start
        if stored is not None:
            return stored.value
        contract = extract()
        if key is not None:
            self._write(key, lambda: ContractEntry(_FORMAT, key, "contract", contract))
        return contract

    def discovery(
        self,
        targets: Sequence[ResolvedTarget],
        extra_roots: Sequence[Path],
        discover: Callable[[SourceReads], Discovery],
        built_in: Collection[str] = (),
    ) -> Discovery:
        """The discovery of ``targets``: the stored one while nothing it read
        changed, else ``discover(read)``'s (``read`` collects what it read; then stored).
        ``built_in``: the release's built-in workers, which ``discover`` picks (keyed)."""
        start = time.perf_counter()
        roots = [*extra_roots, *(t.search_root for t in targets)]
        search = search_path(roots)
        self._witness_search(search)
        checked = {m.partition(".")[0] for t in targets for m in t.modules} | {"sglang", "spec_protocols"}
        try:
            files = _target_files(targets)
            key: str | None = _hash(
                {
                    "format": _FORMAT,
                    "stage": "discovery",
                    "stage_format": _DISCOVERY_FORMAT,
                    "package": self._package(),
                    "interpreter": interpreter(),
                    "distributions": self._world_common()["distributions"],
                    "targets": canonical(list(targets)),
                    "files": files,
                    "roots": [str(r) for r in extra_roots],
                    "search": search,
                    "built_in": sorted(built_in),
                }
            )
        except (GateError, OSError, TypeError):
            key = None
        stored = self._read(key, _DiscoveryEntry) if key is not None else None
        found = stored is not None and self._still_resolves(stored.reads, search, checked)
        self.seconds += time.perf_counter() - start
        if stored is not None and found:
            return stored.value
        from spec_protocols.gate._discovery import SourceReads

        read = SourceReads()
        discovery = discover(read)
        complete, self.complete = self.complete, False  # until it is stored
        if key is None:
            return discovery
        start = time.perf_counter()
        trees: list[tuple[Path, Tree]] = []
        try:
            tops = sorted({name.partition(".")[0] for name in read.names} | checked)
            reads = {top: self._resolved(top, search, checked, trees) for top in tops if top.isidentifier()}
            # A tree digested after discovery read it must hold what it read:
            # a file edited in between would key the old result on the new content.
            if _as_read(read.files, trees):
                self.complete = self._write(key, lambda: _DiscoveryEntry(_FORMAT, key, "discovery", reads, discovery)) and complete
        except (GateError, OSError):
            pass
        self.seconds += time.perf_counter() - start
        return discovery

    def look_up(self, checkers: Sequence[Checker], check_input: CheckInput) -> Lookup:
        """Each checker's key, and the outcomes already stored under them."""
        start = time.perf_counter()
        lookup = Lookup()
        worlds: dict[bool, dict[str, object]] = {}
        try:
            for imports in sorted({checker.imports_target for checker in checkers}):
                worlds[imports] = self._world(check_input, imports_target=imports)
        except (GateError, OSError):
            # Something the key needs cannot be read: run everything, store nothing.
            self.complete = False
            self.seconds += time.perf_counter() - start
            return lookup
        views: dict[str, str] | None = None
        # The input as a checker sees it, written once per view (with and without the harness).
        texts: dict[bool, str | None] = {}
        for checker in checkers:
            static = check_input.static if checker.reads_harness else None
            if static is not None and views is None:
                views = _views(static)
            reads = static is not None
            if reads not in texts:
                try:
                    texts[reads] = canonical(dataclasses.replace(check_input, timeout=0.0, static=static), _relabel(static))
                except TypeError:
                    texts[reads] = None  # a field the key cannot write: never cached, always run
            text = texts[reads]
            if text is None:
                self.complete = False
                continue
            payload = {
                "format": _FORMAT,
                "checker": checker.name,
                "version": checker.version(),
                "input": text,
                "views": views if static is not None else None,
                "world": worlds[checker.imports_target],
                "cwd": str(Path.cwd()) if checker.imports_target else None,
            }
            key = _hash(payload)
            lookup.keys[checker.name] = key
            found = self._read(key, _OutcomeEntry)
            if found is not None and found.checker == checker.name == found.outcome.checker:
                lookup.hits[checker.name] = found.outcome
        self.seconds += time.perf_counter() - start
        return lookup

    def store(self, lookup: Lookup, outcome: CheckerOutcome) -> None:
        """Keep ``outcome`` under its checker's key (not one marked ``transient``)."""
        key = lookup.keys.get(outcome.checker)
        if key is None or outcome.transient:
            self.complete = False
            return
        start = time.perf_counter()
        self.complete = self._write(key, lambda: _OutcomeEntry(_FORMAT, key, outcome.checker, outcome)) and self.complete
        self.seconds += time.perf_counter() - start

    def _entry(self, key: str) -> Path:
        return self.root / "entries" / key[:2] / f"{key}.json"

    def _read(self, key: str, kind: type[_E]) -> _E | None:
        """The entry of type ``kind`` stored under ``key``; None when there is
        none, or it is cut short, damaged, of another format or another key
        (then the stage or checker runs, and its result overwrites it)."""
        try:
            entry = decode(kind, unsealed(json.loads(self._entry(key).read_text(encoding="utf-8"))))
        except (OSError, ValueError):  # absent; not UTF-8, not JSON, unsealed, or not an entry (Undecodable)
            return None
        if entry.format != _FORMAT or entry.key != key:
            return None
        self._used.add(self._entry(key))
        return entry

    def _write(self, key: str, entry: Callable[[], object]) -> bool:
        """Store ``entry()`` under ``key``; nothing (False) when the codec cannot write it."""
        try:
            data = encode(entry())
        except TypeError:
            return False
        write_json(self._entry(key), sealed(data))
        self._used.add(self._entry(key))
        return True

    def _still_resolves(self, reads: Mapping[str, object], search: Sequence[str], checked: set[str]) -> bool:
        """Whether every top-level name a stored discovery read still resolves as it did."""
        # Every entry names at least sglang, this package and the targets' packages.
        if not checked <= reads.keys():
            return False
        try:
            now = {name: self._resolved(name, search, checked, []) for name in reads}
        except (GateError, OSError, LookupError, TypeError, ValueError):
            return False
        return bool(json.loads(json.dumps(now)) == reads)

    def _package(self) -> object:
        return self._world_common()["package"]

    def _world_common(self) -> dict[str, object]:
        """What every key shares, worked out once per run."""
        if self._common is None:
            from spec_protocols.gate._harness import library_root, stub_source

            package = self._memo.tree(library_root() / "spec_protocols")
            try:
                stubs = self._memo.tree(stub_source()).digest
            except GateError:
                stubs = None
            self._common = {
                "package": package.digest,
                "stubs": stubs,
                "distributions": distributions(),
                "environment": environment(),
                "interpreter": interpreter(),
            }
        return self._common

    def _world(self, check_input: CheckInput, *, imports_target: bool) -> dict[str, object]:
        """What a checker's verdicts depend on besides its input.

        A checker that imports the target depends on the whole environment:
        every installed distribution, the interpreter and its environment
        prefix, the environment variables. A static checker reads only its
        view (this package, the sglang checked against, the packages under
        check; see the harness's _environment.py) and the project folders the
        closure digests, so its key leaves out what differs between
        environments that hold the same checkers: the distributions, the
        interpreter's location and the variables that only say which
        environment runs (PATH, VIRTUAL_ENV). Then the console script,
        ``python -m``, the pytest plugin and pre-commit's own environment
        share its entries.
        """
        common = self._world_common()
        if imports_target:
            return {**common, "modules": self._closure(check_input)}
        modules = dict(self._closure(check_input))
        # This package is read from the gate's own folder (the view links it),
        # whose content "package" already holds, wherever it is installed.
        modules.pop("spec_protocols", None)
        return {
            "package": common["package"],
            "stubs": common["stubs"],
            "python": static_interpreter(),
            "environment": static_environment(),
            "modules": modules,
        }

    def _resolved(self, name: str, search: Sequence[str], checked: set[str], trees: list[tuple[Path, Tree]]) -> object:
        """What top-level ``name`` resolves to on ``search``, as a discovery's key
        records it: absent (None), built in, the standard library, an
        installed package (the distributions stand for it), or the content of
        every folder or file it names (``trees`` receives them)."""
        places = locations(name, search)
        if places is None:
            return None
        if not places:
            return "built-in"
        if all(in_standard_library(place) for place in places):
            return "stdlib"
        if name not in checked and all(in_installation(place) for place in places):
            return "installed"
        digested: list[object] = []
        for place in places:
            tree = self._memo.tree(place)
            trees.append((place, tree))
            digested.append([str(place), tree.digest])
        return digested

    def _closure(self, check_input: CheckInput) -> dict[str, object]:
        """Top-level name -> where it is and its digest, for everything the checked code may read."""
        found = check_input.discovery
        roots = [*([check_input.sglang_root] if check_input.sglang_root is not None else []), *found.search_roots]
        search = search_path(roots)
        self._witness_search(search)
        checked = {m.partition(".")[0] for m in found.source_modules} | {"sglang", "spec_protocols"}
        wanted = checked | {m.partition(".")[0] for m in found.imported_modules}
        memo_key = (tuple(search), frozenset(checked), frozenset(wanted))
        if memo_key not in self._closures:
            self._closures[memo_key] = self._walk_closure(search, checked, wanted)
        return self._closures[memo_key]

    def _walk_closure(self, search: list[str], checked: set[str], wanted: set[str]) -> dict[str, object]:
        pending = sorted(wanted, reverse=True)
        seen: dict[str, object] = {}
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            where = locate(name, search)
            if where is None:
                seen[name] = None
            elif in_standard_library(where):
                seen[name] = "stdlib"
            elif in_installation(where) and name not in checked:
                seen[name] = "installed"  # the distributions stand for it
            else:
                tree = self._memo.tree(where)
                seen[name] = [str(where), tree.digest]
                if name != "sglang":
                    # sglang's imports are of installed distributions; following
                    # them would only list names the distributions cover.
                    pending.extend(sorted(tree.imports - seen.keys(), reverse=True))
        return seen


def _hash(payload: object) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _target_files(targets: Sequence[ResolvedTarget]) -> list[list[str]]:
    """Each target module's file and its content digest (read before
    discovery reads it); a file that cannot be read stands as such."""
    files: list[list[str]] = []
    for target in targets:
        for name, file in target.modules.items():
            try:
                sha = hashlib.sha256(file.read_bytes()).hexdigest()
            except OSError:
                sha = "-"
            files.append([name, str(file), sha])
    return files


def _as_read(parsed: Mapping[Path, str], trees: Sequence[tuple[Path, Tree]]) -> bool:
    """Whether each parsed file that lies in a digested tree has there the digest of what was parsed."""
    places = [(str(place), place.is_dir(), tree) for place, tree in trees]
    for file, sha in parsed.items():
        text = str(file)
        for place, is_dir, tree in places:
            if text == place and not is_dir:
                rel = ""
            elif is_dir and text.startswith(place + os.sep):
                rel = text[len(place) + 1 :].replace(os.sep, "/")
            else:
                continue
            if tree.files.get(rel) != sha:
                return False
    return True


def _views(static: StaticInput) -> dict[str, str]:
    """The content of the stub overlay and the shadow tree a static checker reads (no memo: they are small)."""
    unmemoised = StatMemo(None)
    views = {"overlay": unmemoised.tree(static.overlay).digest}
    if static.shadow is not None:
        views["shadow"] = unmemoised.tree(static.shadow.root).digest
    return views


def _relabel(static: StaticInput | None) -> Callable[[PurePath], str]:
    """Paths under this run's folders, by role: their names change every run, their content is keyed apart."""
    if static is None:
        return str
    places = [(static.workdir, "<run>"), (static.overlay, "<overlay>")]
    if static.shadow is not None:
        places.append((static.shadow.root, "<shadow>"))
    # Strings, not Path.parents: a harness has thousands of paths to write.
    prefixes = [(str(place), label) for place, label in places] + [(str(place.resolve()), label) for place, label in places]

    def write(path: PurePath) -> str:
        text = str(path)
        for prefix, label in prefixes:
            if text == prefix:
                return label
            if text.startswith(prefix) and text[len(prefix)] == os.sep:
                return label + "/" + text[len(prefix) + 1 :].replace(os.sep, "/")
        return text

    return write
