"""Baselines: known deviations the gate accepts, each with its reason.

A baseline file (``--baseline FILE``, written by ``--write-baseline FILE``):

    {
      "version": 1,
      "entries": [
        {"target": "sglang.srt.speculative.dflash_worker.DFlashWorker",
         "protocol": "SpecWorker", "member": "forward_batch_generation",
         "checker": "mypy", "reason": "upstream returns a tuple; fixed in sgl-project/sglang#1234"},
        {"target": "sglang.srt.speculative.dflash_worker.DFlashWorker",
         "protocol": "DraftWorkerFactory", "member": null, "checker": "runtime",
         "message": "abstract class: it cannot be instantiated; implement ...",
         "reason": "instantiated only through subclasses"}
      ]
    }

Decisions:

- **Precise keys.** An entry with a member accepts the problems whose
  (target, protocol, member, checker) equal its own, nothing else: a problem
  on another member, from another checker, or on another class stays a
  failure. Messages are not part of that key, because checker wording changes
  between checker versions (the checkers are pinned, and a baseline must
  survive a deliberate bump).
- **Whole-class entries match one message.** ``"member": null`` matches only
  problems that name no member, and only the one whose ``message`` is exactly
  the entry's. Without the message an entry accepted every member-less problem
  of its checker for that class: a class accepted as "abstract" would also
  have hidden a later constructor failure. Such an entry carries ``message``
  (and only such an entry: a ``message`` on an entry with a member would be
  ignored, so it is rejected). A whole-class entry without ``message`` (a file
  written before this rule) is an error telling the user to re-record; the
  writer reads such a file leniently and drops those entries, so that the
  re-recording the error asks for works.
- **Version stays 1.** The format only gained an optional key: every file
  without whole-class entries reads as before, one with them fails with the
  re-record message above (more useful than "unsupported version"), and an
  older spec-protocols that reads a new file rejects ``message`` as an unknown
  key instead of matching too much.
- **A reason is required**, non-empty, on every entry; a file with one
  missing is an error, not a warning, because a baseline nobody can explain
  is how real failures get buried.
- **``unverified`` and ``skipped`` cannot be baselined.** Problems of a
  checker whose verdict for the check is ``unverified`` stay, whatever the
  baseline says: they mean the checker could not see the class, so there is
  nothing known to accept. A ``skipped`` checker did not check at all; its
  reason is a note (``Result.notes``), never a problem, and notes are never
  read or written here.
- **Unused entries fail the run** (:func:`unused_entries`), as mypy's stubtest
  treats an unused allowlist entry: an entry nobody needs any more is one that
  would silently accept the problem if it came back. An entry is judged only
  where its checker looked: an entry of a checker that did not run (a
  ``--checker pyright`` run and a ``mypy`` entry), or whose checker skipped or
  could not see the class in this run, is not unused. An entry whose check is
  absent from the run is unused: the class is gone, renamed, or was not among
  the targets (run with the targets the baseline was written for, or opt out
  with ``--ignore-unused-baseline``). :func:`stale_entries` is the unscoped
  list: every entry that accepted nothing.
- **Atomic writes**: a temporary file in the same directory, fsync, then
  ``os.replace``; an interrupted write leaves the old file as it was.
- **Read and written by the gate's one codec** (:mod:`spec_protocols.gate._codec`):
  the file's shape is :class:`_StoredBaseline` and :class:`_StoredEntry`; what
  the codec finds wrong in an entry, at the first field (in the file's key
  order) that does not fit, is named here in the one-line message the
  baseline has always given.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, cast

from spec_protocols.gate._codec import Undecodable, Valid, decode, encode, write_atomically
from spec_protocols.gate._checkers import CHECKER_NAMES
from spec_protocols.gate._model import GateError, GateReport, Problem, Result, Verdict

__all__ = [
    "BASELINE_VERSION",
    "Baseline",
    "BaselineEntry",
    "BaselineKey",
    "apply_baseline",
    "load_baseline",
    "note_unused",
    "parse_baseline",
    "stale_entries",
    "unused_entries",
    "unused_entry_line",
    "write_baseline",
]

#: The ``version`` field of a baseline file.
BASELINE_VERSION = 1

#: (target, protocol, member, checker, message): what an entry matches,
#: exactly. ``message`` is ``None`` for an entry with a member (it matches any
#: message) and the exact problem message for a whole-class entry.
BaselineKey = tuple[str, str, str | None, str, str | None]

#: Checker verdicts under which the checker did not see (or did not check) the
#: class: its problems cannot be accepted, and its entries cannot be judged.
_BLIND = (Verdict.UNVERIFIED, Verdict.SKIPPED)


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    """One accepted deviation: the problems of *checker* on *member* of the
    class *target* checked against *protocol*, and why they are accepted.

    A whole-class entry (``member is None``) accepts only the problem whose
    message is exactly *message*; an entry with a member has ``message=None``
    and accepts every message (see the module docstring).
    """

    target: str
    protocol: str
    member: str | None
    checker: str
    reason: str
    message: str | None = None

    @property
    def key(self) -> BaselineKey:
        """The exact key the entry matches problems by."""
        return (self.target, self.protocol, self.member, self.checker, self.message)

    def describe(self) -> str:
        """A one-line name for messages: ``target (protocol) member [checker]``,
        followed by the JSON-quoted message for a whole-class entry (quoted, so
        that a message with a line break still gives one line)."""
        member = self.member if self.member is not None else "<class>"
        text = f"{self.target} ({self.protocol}) {member} [{self.checker}]"
        if self.message is not None:
            text += " " + json.dumps(self.message, ensure_ascii=False)
        return text


@dataclass(frozen=True, slots=True)
class Baseline:
    """A loaded baseline file: its entries."""

    entries: tuple[BaselineEntry, ...]

    def by_key(self) -> dict[BaselineKey, BaselineEntry]:
        """The entries indexed by :attr:`BaselineEntry.key`."""
        return {e.key: e for e in self.entries}


def _is_version(value: object) -> bool:
    return value == BASELINE_VERSION


#: A key that must hold a non-empty string.
_Named = Annotated[str, Valid(bool, "a non-empty string")]
class _Absent:
    """Stands for a key the file does not hold (``message``, ``reason``: judged after the codec)."""

    def __repr__(self) -> str:
        return "<absent>"


_ABSENT = _Absent()


@dataclass(frozen=True, slots=True)
class _StoredBaseline:
    """A baseline file's shape (other keys, such as the ``sglang`` that files
    written before 0.1.0's cleanup recorded and nothing read, are ignored)."""

    version: Annotated[object, Valid(_is_version, "the supported version")]
    #: Each entry is read on its own (:class:`_StoredEntry`): its errors name it.
    entries: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class _StoredEntry:
    """One entry's shape, its keys in the order the file writes them.

    ``message`` and ``reason`` are read as they are: whether an entry needs
    a message depends on its member, and that is said before a missing reason.
    """

    target: _Named
    protocol: _Named
    #: Required even when null: a forgotten member must not silently mean "the whole class".
    member: _Named | None
    checker: Annotated[str, Valid(CHECKER_NAMES.__contains__, "a checker's name")]
    message: object = field(default=_ABSENT, kw_only=True)
    reason: object = field(default=_ABSENT, kw_only=True)


def _problem_key(result: Result, problem: Problem) -> BaselineKey:
    # The message is part of the key only for a whole-class problem.
    message = problem.message if problem.member is None else None
    return (result.check.target, result.check.protocol, problem.member, problem.checker, message)


def _can_baseline(result: Result, problem: Problem) -> bool:
    # The unverified rule (see the module docstring): a blind spot is never
    # accepted, whether the problem says so itself (a member the checker saw
    # as Any, in a check that also fails) or its checker's verdict does. A
    # skipped checker reports notes, not problems; should one report a
    # problem anyway, it is not a deviation it found, so it is not accepted.
    return not problem.unverified and result.checkers.get(problem.checker) not in _BLIND


def _fail(where: str, what: str) -> GateError:
    return GateError(f"baseline {where}: {what}")


def _parse_entry(value: object, index: int, where: str, *, lenient: bool) -> BaselineEntry | None:
    """One entry, validated; ``None`` for a whole-class entry without message
    when *lenient* (the writer drops those, see :func:`write_baseline`)."""
    name = f"entry {index}"
    try:
        stored = decode(_StoredEntry, value)
    except Undecodable as exc:
        raise _fail(where, _unfit_entry(name, value, exc)) from None
    member = stored.member
    entry_name = f"{name} ({stored.target} ({stored.protocol}) {member if member is not None else '<class>'} [{stored.checker}])"
    if lenient and member is None and (stored.message is _ABSENT or stored.message is None):
        return None
    message = _entry_message(stored, entry_name, where)
    reason = stored.reason
    if not isinstance(reason, str) or not reason.strip():
        raise _fail(where, f"{entry_name} has no reason; every entry must say why it is accepted")
    return BaselineEntry(stored.target, stored.protocol, member, stored.checker, reason=reason.strip(), message=message)


def _unfit_entry(name: str, value: object, exc: Undecodable) -> str:
    """What is wrong with an entry the codec could not read, as the baseline has always said it."""
    raw = cast(dict[str, object], value) if isinstance(value, dict) else {}
    target, protocol, member = raw.get("target"), raw.get("protocol"), raw.get("member")
    where = exc.path[0] if exc.path else None
    if not isinstance(value, dict):
        return f"{name} is not an object"
    if exc.unknown:
        # A misspelt key ("reson") would otherwise be silently dropped.
        return f"{name} has unknown key(s): {', '.join(exc.unknown)}"
    if where == "target":
        return f"{name} has no target"
    if where == "protocol":
        return f"{name} ({target}) has no protocol"
    if where == "member" and exc.missing:
        return f"{name} ({target} {protocol}) has no member key (use null for the class)"
    if where == "member":
        return f"{name} ({target} {protocol}) has an invalid member: {member!r}"
    return f"{name} ({target} {protocol} {member}) has checker {raw.get('checker')!r}, not one of {', '.join(CHECKER_NAMES)}"


def _entry_message(stored: _StoredEntry, entry_name: str, where: str) -> str | None:
    """The exact message a whole-class entry matches; None for an entry with a member."""
    message = stored.message
    if stored.member is not None:
        if message is not _ABSENT:
            raise _fail(
                where,
                f"{entry_name} has a message, but entries with a member match any message; "
                "remove it (only whole-class entries, member null, match by message)",
            )
        return None
    if message is _ABSENT or message is None:
        # Without its message the entry would accept every whole-class
        # problem of its checker; what it was meant to accept is unknown,
        # so only re-recording can say.
        raise _fail(
            where,
            f"{entry_name} has no message; a whole-class entry (member null) accepts only the problem "
            "with its exact message: re-record the baseline with --write-baseline (without --baseline)",
        )
    if not isinstance(message, str) or not message:
        raise _fail(where, f"{entry_name} has an invalid message: {message!r}")
    return message


def parse_baseline(text: str, *, where: str = "<string>", lenient: bool = False) -> Baseline:
    """Parse the text of a baseline file; *where* names it in errors.

    Raises :class:`GateError` with a one-line message on malformed JSON, a
    wrong version, an invalid or duplicate entry, an entry without reason, or
    a whole-class entry without message. ``lenient=True`` drops whole-class
    entries without message instead (for :func:`write_baseline`, which
    replaces them); every other error still raises.
    """
    try:
        data: object = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(where, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    try:
        doc = decode(_StoredBaseline, data, ignore_unknown=True)
    except Undecodable as exc:
        raise _fail(where, _unfit_file(data, exc)) from None
    entries: list[BaselineEntry] = []
    seen: set[BaselineKey] = set()
    for index, raw in enumerate(doc.entries):
        entry = _parse_entry(raw, index, where, lenient=lenient)
        if entry is None:
            continue
        if entry.key in seen:
            # Two reasons for one key: which one holds is ambiguous.
            raise _fail(where, f"entry {index} ({entry.describe()}) duplicates an earlier entry")
        seen.add(entry.key)
        entries.append(entry)
    return Baseline(entries=tuple(entries))


def _unfit_file(data: object, exc: Undecodable) -> str:
    if not isinstance(data, dict):
        return "not a JSON object"
    if exc.path[:1] == ("version",):
        return f"unsupported version {cast(dict[str, object], data).get('version')!r} (expected {BASELINE_VERSION})"
    return "entries is not a list"


def load_baseline(path: str | os.PathLike[str], *, lenient: bool = False) -> Baseline:
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
    return parse_baseline(text, where=os.fspath(path), lenient=lenient)


def _recompute(result: Result, kept: tuple[Problem, ...], accepted: tuple[Problem, ...]) -> Result:
    if not accepted:
        return result
    checkers = {name: _checker_verdict(name, verdict, kept, accepted) for name, verdict in result.checkers.items()}
    return replace(
        result,
        verdict=_result_verdict(result.verdict, checkers, kept),
        checkers=checkers,
        problems=kept,
        baselined=(*result.baselined, *accepted),
    )


def _checker_verdict(name: str, verdict: Verdict, kept: tuple[Problem, ...], accepted: tuple[Problem, ...]) -> Verdict:
    # A checker passes once every problem it reported is accepted, and is
    # unverified when only its blind spots remain; a checker with nothing
    # accepted keeps its verdict as it was.
    if verdict is not Verdict.FAIL or not any(p.checker == name for p in accepted):
        return verdict
    still = [p for p in kept if p.checker == name]
    if not still:
        return Verdict.PASS
    return Verdict.UNVERIFIED if all(p.unverified for p in still) else verdict


def _result_verdict(verdict: Verdict, checkers: Mapping[str, Verdict], kept: tuple[Problem, ...]) -> Verdict:
    if verdict is not Verdict.FAIL:
        return verdict
    values = set(checkers.values())
    if Verdict.FAIL in values or (any(not p.unverified for p in kept) and Verdict.UNVERIFIED not in values):
        return Verdict.FAIL
    if Verdict.UNVERIFIED in values:
        return Verdict.UNVERIFIED
    if Verdict.PASS in values and not kept:
        return Verdict.PASS
    # Every checker skipped: nothing vouches for the class, so the original FAIL stands.
    return verdict


def apply_baseline(report: GateReport, baseline: Baseline) -> GateReport:
    """Return *report* with every problem a baseline entry matches moved from
    ``Result.problems`` to ``Result.baselined``, and verdicts recomputed.

    A checker whose problems were all accepted becomes ``pass``; a result
    whose failing checkers all became ``pass`` becomes ``pass`` (or stays
    ``unverified`` if a checker is unverified). Problems of an unverified
    checker are never accepted; notes are left as they are. Call
    :func:`unused_entries` for the entries that should go.
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


def _matched_keys(report: GateReport) -> set[BaselineKey]:
    # Before or after apply_baseline alike: a baselined problem was matched,
    # and a problem still open could be.
    matched: set[BaselineKey] = set()
    for result in report.results:
        for problem in result.baselined:
            matched.add(_problem_key(result, problem))
        for problem in result.problems:
            if _can_baseline(result, problem):
                matched.add(_problem_key(result, problem))
    return matched


def stale_entries(report: GateReport, baseline: Baseline) -> tuple[BaselineEntry, ...]:
    """The entries of *baseline* that accept no problem of *report*, in file order.

    Unscoped: it includes entries of checkers that did not run. Works on the
    report before or after :func:`apply_baseline` (already baselined problems
    count as matched). An entry matching only problems of an unverified
    checker is stale: it accepts nothing. What fails a run is the scoped
    :func:`unused_entries`.
    """
    matched = _matched_keys(report)
    return tuple(e for e in baseline.entries if e.key not in matched)


def unused_entries(report: GateReport, baseline: Baseline) -> tuple[BaselineEntry, ...]:
    """The entries that fail a run: they accepted nothing although their checker looked.

    In file order, a subset of :func:`stale_entries`. An entry is judged only
    when its checker is among ``report.checkers`` and, if the entry's check is
    in the report, that checker's verdict on it is ``pass`` or ``fail``: an
    entry of a checker that did not run, that skipped the class (the runtime
    checker without an importable target) or that could not see it
    (``unverified``, which fails the run anyway) is kept for the runs where
    that checker does look. An entry whose check is absent from the report is
    unused (the class is gone or was renamed, or the run checked fewer targets
    than the baseline was written for; ``--ignore-unused-baseline`` is the
    opt-out for the latter).
    """
    results = {(r.check.target, r.check.protocol): r for r in report.results}
    unused: list[BaselineEntry] = []
    for entry in stale_entries(report, baseline):
        if entry.checker not in report.checkers:
            continue
        result = results.get((entry.target, entry.protocol))
        if result is not None and result.checkers.get(entry.checker) not in (Verdict.PASS, Verdict.FAIL):
            continue
        unused.append(entry)
    return tuple(unused)


def unused_entry_line(entry: BaselineEntry) -> str:
    """``unused baseline entry: <target> (<protocol>) <member> [<checker>]``:
    the one line the CLI (prefixed ``spec-protocols: ``), the report's notes
    and the pytest plugin's item give for an unused entry."""
    return f"unused baseline entry: {entry.describe()}"


def note_unused(report: GateReport, entries: Iterable[BaselineEntry]) -> GateReport:
    """*report* with one run-level note per unused entry (see
    :func:`unused_entry_line`), so that every output format that shows the
    report's notes lists them; the verdicts are not touched (the exit status
    is the caller's decision)."""
    lines = tuple(unused_entry_line(e) for e in entries)
    if not lines:
        return report
    return replace(report, notes=(*report.notes, *(line for line in lines if line not in report.notes)))


def _entries_for(report: GateReport) -> Iterable[tuple[BaselineKey, Problem]]:
    # Problems only (open and already baselined): Result.notes, such as a
    # skipped checker's reason, are never deviations and never written.
    for result in report.results:
        for problem in (*result.problems, *result.baselined):
            if _can_baseline(result, problem):
                yield _problem_key(result, problem), problem


def _stored(entry: BaselineEntry) -> _StoredEntry:
    # Only a whole-class entry writes its message.
    message = entry.message if entry.member is None else _ABSENT
    return _StoredEntry(entry.target, entry.protocol, entry.member, entry.checker, message=message, reason=entry.reason)


def _sort_key(key: BaselineKey) -> tuple[str, str, str, str, str]:
    target, protocol, member, checker, message = key
    return (target, protocol, member or "", checker, message or "")


def _new_entry(key: BaselineKey, reason: str) -> BaselineEntry:
    target, protocol, member, checker, message = key
    return BaselineEntry(target, protocol, member, checker, reason=reason, message=message)


def write_baseline(
    report: GateReport,
    path: str | os.PathLike[str],
    *,
    reason: str,
) -> Baseline:
    """Write a baseline accepting every current problem of *report* to *path*,
    atomically, and return it.

    Each entry needs a reason: entries already in the file at *path* keep
    theirs, and new ones get *reason* (which must be non-empty). Entries of
    that file which match no current problem are dropped, and so are its
    whole-class entries without message (written before whole-class entries
    matched by message; what they accepted is unknown, so their problems get
    new entries with *reason*). Problems already baselined in *report* are
    kept; problems of an unverified or skipped checker, and notes, are not
    written. Raises
    :class:`GateError` if *reason* is empty, if the existing file is otherwise
    invalid (it is not overwritten then), or if writing fails (the old file is
    left as it was).
    """
    if not reason.strip():
        raise GateError("--write-baseline needs a non-empty reason for new entries")
    target = Path(path)
    existing: Mapping[BaselineKey, BaselineEntry] = {}
    if target.exists():
        old = load_baseline(target, lenient=True)
        existing = old.by_key()
    keys = sorted({key for key, _ in _entries_for(report)}, key=_sort_key)
    entries = tuple(existing[key] if key in existing else _new_entry(key, reason.strip()) for key in keys)
    baseline = Baseline(entries=entries)
    document = encode(_StoredBaseline(BASELINE_VERSION, tuple(_stored(e) for e in entries)), omit_defaults=True)
    try:
        write_atomically(target, json.dumps(document, indent=2, ensure_ascii=False) + "\n", durable=True)
    except OSError as exc:
        raise GateError(f"baseline {target}: cannot write: {exc.strerror or exc}") from None
    return baseline
