"""The run memo: a whole unchanged run answered from one entry, before any stage is imported.

A cached run with nothing changed used to import every stage, digest every
tree (reading each memo and stat'ing each file), decode the stored contract
and discovery and prepare the harness, only to find each checker's key
stored. The run memo answers the same question from one entry:

*Its key* (:func:`run_key`) is what the process knows before it reads
anything: the request (the targets as given; the checkers, those of the
gate's own registry by name, since their versions are read from the
installed distributions below, any other by its ``version()`` too; whether
the target may be imported; ``--sglang`` as given), the current directory,
``sys.path``, the environment variables of every verdict key, the
interpreter, the installed distributions (:func:`._fingerprint.distributions`)
and the cache folder.

*Its entry* holds the report that run made (timings and ``reused`` aside)
and its *witnesses*, recorded by the run that went through the stages:

* every path the run's digests rest on, with its stat signature as it was
  read (size, mtime, ctime, inode): each file of every tree digested
  (sglang's, this package's, its stubs', the packages under check and what
  they import from outside site-packages), each folder of those trees (its
  stat taken before it was listed: a file added, removed or renamed changes
  it), each entry of the search path (a module appearing there changes its
  folder), and each root found absent;
* the sha256 of every stage entry the run read or wrote (the contract,
  each discovery, each checker's outcome): an entry damaged since stands
  for a run that would not reuse it, and the memo is not used.

Like every entry, the memo is sealed with the sha256 of its own content
(:func:`._fingerprint.sealed`): a memo damaged or edited by hand (a fail
rewritten as a pass) reads as none.

It is recalled only when every witness is as recorded; then the stored
report is the run's, every checker shown as reused. Otherwise the run goes
through the stages, whose keys are verified by content as before, and a run
in which every stage was keyed and stored, and no witness had changed within
two seconds of being read (the stat memo's racy case), keeps a new memo.
The trust is the stat memo's, no more: a path whose size, mtime, ctime and
inode are unchanged has the content it had (ctime cannot be set from user
space), and a folder whose stat is unchanged has the entries it had.

This module imports only the model, the codec and the fingerprints, so that
the CLI can ask it before importing any stage (:mod:`..._cli._check_command`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from spec_protocols.gate._cache._fingerprint import (
    RACY_NS,
    Signature,
    distributions,
    environment,
    interpreter,
    sealed,
    signature,
    unsealed,
    write_json,
)
from spec_protocols.gate._codec import decode, encode
from spec_protocols.gate._model import GateReport
from spec_protocols.gate._paths import cache_dir

__all__ = ["NO_CACHE_ENV", "MemoRequest", "memo_key", "memo_root", "recall", "recall_request", "remember", "run_key", "search_witnesses"]

#: Set (to anything but "" or "0") to turn the verdict cache off, as ``--no-cache`` does.
NO_CACHE_ENV = "SPEC_PROTOCOLS_NO_CACHE"

# Bump when the entry's layout or the key's meaning changes.
# 4: the request as asked (the checkers by name, None for the defaults), not as chosen.
_RUN_FORMAT = 4


@dataclass(frozen=True, slots=True)
class MemoRequest:
    """What the run memo's key holds of a request (for one release): the
    targets as given; the checkers as asked, each by its name and, for one
    that is not the registry's own, its ``version()`` (the registry's version
    is the installed distributions', which the key holds; None: the
    registry's defaults); whether the target may be imported; ``--sglang``
    as given."""

    targets: tuple[str, ...]
    checkers: tuple[tuple[str, str | None], ...] | None
    allow_import: bool
    sglang: str | None


def run_key(request: MemoRequest, *, root: Path) -> str:
    """The run memo's key of ``request`` (a run that cannot be keyed keeps no
    memo: the pipeline decides, :meth:`~spec_protocols.gate._cache.VerdictCache.remember`)."""
    payload = {
        "format": _RUN_FORMAT,
        "targets": list(request.targets),
        "checkers": None if request.checkers is None else [list(checker) for checker in request.checkers],
        "allow_import": request.allow_import,
        "sglang": request.sglang,
        "cwd": os.getcwd(),
        "path": sys.path,
        "environment": environment(),
        "interpreter": interpreter(),
        "distributions": distributions(),
        "cache": str(root),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def memo_key(request: MemoRequest) -> str | None:
    """``request``'s key, computed when a run starts (before anything it reads
    can change); None where the cache is off (``$SPEC_PROTOCOLS_NO_CACHE``)."""
    if os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return None
    return run_key(request, root=memo_root())


def memo_root() -> Path:
    """The verdict cache's folder, which holds the run memos."""
    return cache_dir() / "verdicts"


def recall_request(key: str) -> GateReport | None:
    """The report of an unchanged run whose key is ``key``, timings complete;
    None where anything the memo rests on changed (then the run goes through the stages)."""
    start = time.perf_counter()
    report = recall(memo_root(), key, 0.0)
    if report is None:
        return None
    return replace(report, timings={**report.timings, "total": time.perf_counter() - start})


def _entry(root: Path, key: str) -> Path:
    return root / "runs" / key[:2] / f"{key}.json"


def recall(root: Path, key: str, seconds: float = 0.0) -> GateReport | None:
    """The report stored under ``key`` while every witness is as recorded, its
    checkers shown as reused and its timings a cached run's (``seconds``, the
    key's cost so far, included in ``"cache"``); else None."""
    start = time.perf_counter()
    try:
        loaded = unsealed(json.loads(_entry(root, key).read_text(encoding="utf-8")))
        data = cast(dict[str, Any], loaded)
        if data.get("format") != _RUN_FORMAT or data.get("key") != key:
            return None
        if not _unchanged(data["paths"]) or not _entries_unchanged(data["entries"]):
            return None
        report = decode(GateReport, data["report"])
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        # absent; not JSON; not an entry of this shape (Undecodable is a ValueError)
        return None
    spent = seconds + time.perf_counter() - start
    timings = {"contract": 0.0, "discovery": 0.0, **{f"{name} (cached)": 0.0 for name in report.checkers}, "cache": spent}
    return replace(report, timings=timings, reused=report.checkers)


def remember(
    root: Path, key: str, report: GateReport, witnesses: Mapping[str, Signature], entries: Iterable[Path]
) -> None:
    """Keep ``report`` under ``key`` with its witnesses and the digests of the stage entries it rests on."""
    digests: dict[str, str] = {}
    for entry in sorted(set(entries)):
        try:
            digests[str(entry)] = hashlib.sha256(entry.read_bytes()).hexdigest()
        except OSError:
            return  # an entry the run stored is gone: a later run keeps the memo
    try:
        stored = encode(replace(report, timings={}, reused=()))
    except TypeError:
        return
    memo = {"format": _RUN_FORMAT, "key": key, "paths": _grouped(witnesses), "entries": digests, "report": stored}
    write_json(_entry(root, key), sealed(memo))


def search_witnesses(search: Iterable[str]) -> tuple[dict[str, Signature], bool]:
    """Each search-path entry's signature now (None: absent), and whether one changed too recently to witness it."""
    now = time.time_ns()
    found: dict[str, Signature] = {}
    racy = False
    for entry in search:
        path = os.path.abspath(entry)
        try:
            st = os.stat(path)
        except OSError:
            found[path] = None
            continue
        found[path] = signature(st)
        racy = racy or now - max(st.st_mtime_ns, st.st_ctime_ns) <= RACY_NS
    return found, racy


def _grouped(witnesses: Mapping[str, Signature]) -> dict[str, list[str]]:
    """Witnesses by folder: ``[names, absent names, digest]``, the names
    "/"-joined (no file name holds one) and the digest that of their
    signatures in that order (:func:`_signatures`), so that each is checked
    by its name in its folder and an entry reads fast."""
    present: dict[str, list[tuple[str, list[int]]]] = {}
    absent: dict[str, list[str]] = {}
    for path, sig in sorted(witnesses.items()):
        folder, name = os.path.split(path)
        if sig is None:
            absent.setdefault(folder, []).append(name or ".")
        else:
            present.setdefault(folder, []).append((name or ".", sig))
    grouped: dict[str, list[str]] = {}
    for folder in sorted({*present, *absent}):
        items = present.get(folder, [])
        digest = _signatures([(sig[0], sig[1], sig[2], sig[3]) for _, sig in items])
        grouped[folder] = ["/".join(name for name, _ in items), "/".join(absent.get(folder, [])), digest]
    return grouped


def _signatures(stats: list[tuple[int, int, int, int]]) -> str:
    return hashlib.sha256(repr(stats).encode()).hexdigest()


def _unchanged(paths: Mapping[str, Sequence[str]]) -> bool:
    """Whether every witness has the signature recorded (absent ones are still absent)."""
    for folder, (names, absent, digest) in paths.items():
        try:
            handle: int | None = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            handle = None
        try:
            stats: list[tuple[int, int, int, int]] = []
            for name in names.split("/") if names else ():
                st = os.stat(name, dir_fd=handle) if handle is not None else os.stat(os.path.join(folder, name))
                stats.append((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
            if _signatures(stats) != digest or any(_exists(folder, name, handle) for name in absent.split("/") if absent):
                return False
        except OSError:
            return False  # a witness gone
        finally:
            if handle is not None:
                os.close(handle)
    return True


def _exists(folder: str, name: str, handle: int | None) -> bool:
    try:
        os.stat(name, dir_fd=handle) if handle is not None else os.stat(os.path.join(folder, name))
    except OSError:
        return False
    return True


def _entries_unchanged(entries: Mapping[str, str]) -> bool:
    """Whether each stage entry the memo rests on still has the content it had."""
    for file, digest in entries.items():
        try:
            with open(file, "rb") as handle:
                if hashlib.sha256(handle.read()).hexdigest() != digest:
                    return False
        except OSError:
            return False
    return True
