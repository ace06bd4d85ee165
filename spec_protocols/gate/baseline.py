"""Baselines: known deviations the gate accepts, each with its reason.

A baseline file (``--baseline FILE``, written by ``--write-baseline FILE``):

    {
      "version": 1,
      "sglang": "0.5.23",
      "entries": [
        {"target": "sglang.srt.speculative.dflash_worker.DFlashWorker",
         "protocol": "SpecWorker", "member": "forward_batch_generation",
         "checker": "mypy", "reason": "upstream returns a tuple; fixed in sgl-project/sglang#1234"}
      ]
    }

Decisions:

- **Precise keys.** An entry accepts the problems whose
  (target, protocol, member, checker) equal its own, nothing else: a problem
  on another member, from another checker, or on another class stays a
  failure, so a baseline can never hide a new problem. ``"member": null``
  matches only problems that name no member (a whole-class problem), never
  "any member". Messages are not part of the key, because checker wording
  changes between checker versions and a baseline must survive that.
- **A reason is required**, non-empty, on every entry; a file with one
  missing is an error, not a warning, because a baseline nobody can explain
  is how real failures get buried.
- **``unverified`` cannot be baselined.** Problems of a checker whose verdict
  for the check is ``unverified`` stay, whatever the baseline says: they mean
  the checker could not see the class, so there is nothing known to accept.
  Such entries count as stale.
- **Stale entries** (entries that accept nothing in a report) are returned by
  :func:`stale_entries` so that the CLI can warn; they are not errors, since
  the same baseline serves runs with different ``--checker`` choices.
- **Atomic writes**: a temporary file in the same directory, fsync, then
  ``os.replace``; an interrupted write leaves the old file as it was.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from spec_protocols.gate.model import CHECKER_NAMES, GateError, GateReport, Problem, Result, Verdict
from spec_protocols.gate.reports.json_report import json_list, json_object

__all__ = [
    "BASELINE_VERSION",
    "Baseline",
    "BaselineEntry",
    "BaselineKey",
    "apply_baseline",
    "load_baseline",
    "parse_baseline",
    "stale_entries",
    "write_baseline",
]

#: The ``version`` field of a baseline file.
BASELINE_VERSION = 1

#: (target, protocol, member, checker): what an entry matches, exactly.
BaselineKey = tuple[str, str, str | None, str]

_ENTRY_KEYS = ("target", "protocol", "member", "checker", "reason")


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    """One accepted deviation: the problems of *checker* on *member* of the
    class *target* checked against *protocol*, and why they are accepted."""

    target: str
    protocol: str
    member: str | None
    checker: str
    reason: str

    @property
    def key(self) -> BaselineKey:
        """The exact key the entry matches problems by."""
        return (self.target, self.protocol, self.member, self.checker)

    def describe(self) -> str:
        """A one-line name for messages: ``target (protocol) member [checker]``."""
        member = self.member if self.member is not None else "<class>"
        return f"{self.target} ({self.protocol}) {member} [{self.checker}]"


@dataclass(frozen=True, slots=True)
class Baseline:
    """A loaded baseline file: its entries and the sglang version it was made for.

    ``sglang`` is informational (``None`` when unknown); the CLI may warn when
    it differs from the installed sglang.
    """

    entries: tuple[BaselineEntry, ...]
    sglang: str | None = None

    def by_key(self) -> dict[BaselineKey, BaselineEntry]:
        """The entries indexed by :attr:`BaselineEntry.key`."""
        return {e.key: e for e in self.entries}


def _problem_key(result: Result, problem: Problem) -> BaselineKey:
    return (result.check.target, result.check.protocol, problem.member, problem.checker)


def _can_baseline(result: Result, problem: Problem) -> bool:
    # The unverified rule (see the module docstring): decided per checker,
    # since a Problem does not say whether it is a failure or a blind spot.
    return result.checkers.get(problem.checker) is not Verdict.UNVERIFIED


def _fail(where: str, what: str) -> GateError:
    return GateError(f"baseline {where}: {what}")


def _parse_entry(value: object, index: int, where: str) -> BaselineEntry:
    name = f"entry {index}"
    raw = json_object(value)
    if raw is None:
        raise _fail(where, f"{name} is not an object")
    unknown = sorted(set(raw) - set(_ENTRY_KEYS))
    if unknown:
        # A misspelt key ("reson") would otherwise be silently dropped.
        raise _fail(where, f"{name} has unknown key(s): {', '.join(unknown)}")
    target, protocol, member = raw.get("target"), raw.get("protocol"), raw.get("member")
    checker, reason = raw.get("checker"), raw.get("reason")
    if not isinstance(target, str) or not target:
        raise _fail(where, f"{name} has no target")
    if not isinstance(protocol, str) or not protocol:
        raise _fail(where, f"{name} ({target}) has no protocol")
    if "member" not in raw:
        # Required even when null: a forgotten member must not silently mean
        # "the whole class".
        raise _fail(where, f"{name} ({target} {protocol}) has no member key (use null for the class)")
    if member is not None and (not isinstance(member, str) or not member):
        raise _fail(where, f"{name} ({target} {protocol}) has an invalid member: {member!r}")
    if not isinstance(checker, str) or checker not in CHECKER_NAMES:
        raise _fail(
            where,
            f"{name} ({target} {protocol} {member}) has checker {checker!r}, "
            f"not one of {', '.join(CHECKER_NAMES)}",
        )
    entry_name = f"{name} ({target} ({protocol}) {member if member is not None else '<class>'} [{checker}])"
    if not isinstance(reason, str) or not reason.strip():
        raise _fail(where, f"{entry_name} has no reason; every entry must say why it is accepted")
    return BaselineEntry(target=target, protocol=protocol, member=member, checker=checker, reason=reason.strip())


def parse_baseline(text: str, *, where: str = "<string>") -> Baseline:
    """Parse the text of a baseline file; *where* names it in errors.

    Raises :class:`GateError` with a one-line message on malformed JSON, a
    wrong version, an invalid or duplicate entry, or an entry without reason.
    """
    try:
        doc = json_object(json.loads(text))
    except json.JSONDecodeError as exc:
        raise _fail(where, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if doc is None:
        raise _fail(where, "not a JSON object")
    if doc.get("version") != BASELINE_VERSION:
        raise _fail(where, f"unsupported version {doc.get('version')!r} (expected {BASELINE_VERSION})")
    sglang = doc.get("sglang")
    if sglang is not None and not isinstance(sglang, str):
        raise _fail(where, "sglang is neither a version string nor null")
    raw_entries = json_list(doc.get("entries"))
    if raw_entries is None:
        raise _fail(where, "entries is not a list")
    entries: list[BaselineEntry] = []
    seen: set[BaselineKey] = set()
    for index, raw in enumerate(raw_entries):
        entry = _parse_entry(raw, index, where)
        if entry.key in seen:
            # Two reasons for one key: which one holds is ambiguous.
            raise _fail(where, f"entry {index} ({entry.describe()}) duplicates an earlier entry")
        seen.add(entry.key)
        entries.append(entry)
    return Baseline(entries=tuple(entries), sglang=sglang)


def load_baseline(path: str | os.PathLike[str]) -> Baseline:
    """Read and validate the baseline file at *path* (see :func:`parse_baseline`).

    A missing or unreadable file is a :class:`GateError` too: a CI job that
    names a baseline must not run without it.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GateError(f"baseline {os.fspath(path)}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GateError(f"baseline {os.fspath(path)}: cannot read: {exc}") from None
    return parse_baseline(text, where=os.fspath(path))


def _recompute(result: Result, kept: tuple[Problem, ...], accepted: tuple[Problem, ...]) -> Result:
    if not accepted:
        return result
    checkers = dict(result.checkers)
    for name, verdict in result.checkers.items():
        had = any(p.checker == name for p in accepted)
        still = any(p.checker == name for p in kept)
        # A checker passes once every problem it reported is accepted; a
        # checker with nothing accepted keeps its verdict as it was.
        if verdict is Verdict.FAIL and had and not still:
            checkers[name] = Verdict.PASS
    verdict = result.verdict
    if verdict is Verdict.FAIL:
        values = set(checkers.values())
        if Verdict.FAIL in values or (kept and Verdict.UNVERIFIED not in values):
            verdict = Verdict.FAIL
        elif Verdict.UNVERIFIED in values:
            verdict = Verdict.UNVERIFIED
        elif Verdict.PASS in values and not kept:
            verdict = Verdict.PASS
        # else: every checker skipped; nothing vouches for the class, so the
        # original FAIL stands.
    return replace(
        result,
        verdict=verdict,
        checkers=checkers,
        problems=kept,
        baselined=(*result.baselined, *accepted),
    )


def apply_baseline(report: GateReport, baseline: Baseline) -> GateReport:
    """Return *report* with every problem a baseline entry matches moved from
    ``Result.problems`` to ``Result.baselined``, and verdicts recomputed.

    A checker whose problems were all accepted becomes ``pass``; a result
    whose failing checkers all became ``pass`` becomes ``pass`` (or stays
    ``unverified`` if a checker is unverified). Problems of an unverified
    checker are never accepted. Call :func:`stale_entries` for the entries
    that accepted nothing.
    """
    keys = baseline.by_key()
    results: list[Result] = []
    for result in report.results:
        kept: list[Problem] = []
        accepted: list[Problem] = []
        for problem in result.problems:
            if _problem_key(result, problem) in keys and _can_baseline(result, problem):
                accepted.append(problem)
            else:
                kept.append(problem)
        results.append(_recompute(result, tuple(kept), tuple(accepted)))
    return replace(report, results=tuple(results))


def stale_entries(report: GateReport, baseline: Baseline) -> tuple[BaselineEntry, ...]:
    """The entries of *baseline* that accept no problem of *report*, in file order.

    Works on the report before or after :func:`apply_baseline` (already
    baselined problems count as matched). An entry matching only problems of
    an unverified checker is stale: it accepts nothing.
    """
    matched: set[BaselineKey] = set()
    for result in report.results:
        for problem in result.baselined:
            matched.add(_problem_key(result, problem))
        for problem in result.problems:
            if _can_baseline(result, problem):
                matched.add(_problem_key(result, problem))
    return tuple(e for e in baseline.entries if e.key not in matched)


def _entries_for(report: GateReport) -> Iterable[tuple[BaselineKey, Problem]]:
    for result in report.results:
        for problem in (*result.problems, *result.baselined):
            if _can_baseline(result, problem):
                yield _problem_key(result, problem), problem


def _entry_json(entry: BaselineEntry) -> dict[str, Any]:
    return {key: getattr(entry, key) for key in _ENTRY_KEYS}


def _sort_key(key: BaselineKey) -> tuple[str, str, str, str]:
    target, protocol, member, checker = key
    return (target, protocol, member or "", checker)


def write_baseline(
    report: GateReport,
    path: str | os.PathLike[str],
    *,
    reason: str,
    sglang: str | None = None,
) -> Baseline:
    """Write a baseline accepting every current problem of *report* to *path*,
    atomically, and return it.

    Each entry needs a reason: entries already in the file at *path* keep
    theirs, and new ones get *reason* (which must be non-empty). Entries of
    that file which match no current problem are dropped. Problems already
    baselined in *report* are kept; problems of an unverified checker are not
    written (they cannot be baselined). *sglang* defaults to the existing
    file's value. Raises :class:`GateError` if *reason* is empty, if the
    existing file is invalid (it is not overwritten then), or if writing fails
    (the old file is left as it was).
    """
    if not reason.strip():
        raise GateError("--write-baseline needs a non-empty reason for new entries")
    target = Path(path)
    existing: Mapping[BaselineKey, BaselineEntry] = {}
    if target.exists():
        old = load_baseline(target)
        existing = old.by_key()
        if sglang is None:
            sglang = old.sglang
    keys = sorted({key for key, _ in _entries_for(report)}, key=_sort_key)
    entries = tuple(
        existing[key] if key in existing else BaselineEntry(*key, reason=reason.strip())
        for key in keys
    )
    baseline = Baseline(entries=entries, sglang=sglang)
    document = {
        "version": BASELINE_VERSION,
        "sglang": sglang,
        "entries": [_entry_json(e) for e in entries],
    }
    _atomic_write(target, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return baseline


def _atomic_write(path: Path, text: str) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise GateError(f"baseline {path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        # Whatever failed (disk full, Ctrl-C), the temporary file goes and the
        # old baseline stays whole.
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise GateError(f"baseline {path}: cannot write: {exc.strerror or exc}") from None
        raise
    # Make the rename itself durable; not every platform can open a directory.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
