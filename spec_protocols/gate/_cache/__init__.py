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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from spec_protocols.gate._cache._codec import Undecodable, canonical, decode, encode
from spec_protocols.gate._cache._fingerprint import (
    StatMemo,
    distributions,
    environment,
    in_site_packages,
    in_standard_library,
    interpreter,
    locate,
    write_json,
)
from spec_protocols.gate._checkers import Checker
from spec_protocols.gate._harness import CheckInput, StaticInput
from spec_protocols.gate._harness._environment import library_root, stub_source
from spec_protocols.gate._model import CheckerOutcome, GateError
from spec_protocols.gate._module_paths import search_path

__all__ = ["NO_CACHE_ENV", "Lookup", "VerdictCache", "open_cache"]

#: Set (to anything but "" or "0") to turn the verdict cache off, as ``--no-cache`` does.
NO_CACHE_ENV = "SPEC_PROTOCOLS_NO_CACHE"

# Bump when an entry's layout or the key's meaning changes: old entries are then never read.
_FORMAT = 1


@dataclass(slots=True)
class Lookup:
    """The keys of one group's checkers and the outcomes found under them."""

    #: checker name -> key; a checker without one (its input could not be keyed) is never cached.
    keys: dict[str, str] = field(default_factory=dict[str, str])
    #: checker name -> the stored outcome, for the checkers not to run.
    hits: dict[str, CheckerOutcome] = field(default_factory=dict[str, CheckerOutcome])


def open_cache(requested: bool, root: Path) -> VerdictCache | None:
    """The cache under ``root``, unless ``requested`` is False or ``$SPEC_PROTOCOLS_NO_CACHE`` is set."""
    if not requested or os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return None
    return VerdictCache(root)


class VerdictCache:
    """Entries under ``root/entries``, the stat memos under ``root/memo``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        #: Seconds spent on the cache this run (digests, reads, writes), for the report's timings.
        self.seconds = 0.0
        self._memo = StatMemo(root / "memo")
        self._common: dict[str, object] | None = None

    def look_up(self, checkers: Sequence[Checker], check_input: CheckInput) -> Lookup:
        """Each checker's key, and the outcomes already stored under them."""
        start = time.perf_counter()
        lookup = Lookup()
        try:
            world = self._world(check_input)
        except (GateError, OSError):
            # Something the key needs cannot be read: run everything, store nothing.
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
                continue
            payload = {
                "format": _FORMAT,
                "checker": checker.name,
                "version": checker.version(),
                "input": text,
                "views": views if static is not None else None,
                "world": world,
                "cwd": str(Path.cwd()) if checker.imports_target else None,
            }
            key = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
            lookup.keys[checker.name] = key
            found = self._load(key, checker.name)
            if found is not None:
                lookup.hits[checker.name] = found
        self.seconds += time.perf_counter() - start
        return lookup

    def store(self, lookup: Lookup, outcome: CheckerOutcome) -> None:
        """Keep ``outcome`` under its checker's key (not one marked ``transient``)."""
        key = lookup.keys.get(outcome.checker)
        if key is None or outcome.transient:
            return
        start = time.perf_counter()
        try:
            document = {"format": _FORMAT, "key": key, "checker": outcome.checker, "outcome": encode(outcome)}
        except TypeError:
            return
        write_json(self._entry(key), document)
        self.seconds += time.perf_counter() - start

    def _entry(self, key: str) -> Path:
        return self.root / "entries" / key[:2] / f"{key}.json"

    def _load(self, key: str, checker: str) -> CheckerOutcome | None:
        try:
            data: Any = json.loads(self._entry(key).read_text(encoding="utf-8"))
            if data["format"] != _FORMAT or data["key"] != key or data["checker"] != checker:
                return None
            outcome = decode(CheckerOutcome, data["outcome"])
        except (OSError, ValueError, LookupError, TypeError, Undecodable):
            # Absent, cut short, written by another format, or not an outcome: run the checker.
            return None
        return outcome if isinstance(outcome, CheckerOutcome) and outcome.checker == checker else None

    def _world(self, check_input: CheckInput) -> dict[str, object]:
        if self._common is None:
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
        return {**self._common, "modules": self._closure(check_input)}

    def _closure(self, check_input: CheckInput) -> dict[str, object]:
        """Top-level name -> where it is and its digest, for everything the checked code may read."""
        found = check_input.discovery
        roots = [*([check_input.sglang_root] if check_input.sglang_root is not None else []), *found.search_roots]
        search = search_path(roots)
        checked = {m.partition(".")[0] for m in found.source_modules} | {"sglang", "spec_protocols"}
        pending = sorted(checked | {m.partition(".")[0] for m in found.imported_modules}, reverse=True)
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
            elif in_site_packages(where) and name not in checked:
                seen[name] = "installed"  # the distributions stand for it
            else:
                tree = self._memo.tree(where)
                seen[name] = [str(where), tree.digest]
                if name != "sglang":
                    # sglang's imports are of installed distributions; following
                    # them would only list names the distributions cover.
                    pending.extend(sorted(tree.imports - seen.keys(), reverse=True))
        return seen


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
