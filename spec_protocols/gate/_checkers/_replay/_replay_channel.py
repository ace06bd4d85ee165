"""What the replay checker and its driver process say to each other: a request in, an answer out, through the codec.

The driver (:mod:`._driver`) runs the plugin's code and sglang's, so it runs
in a process of its own; what it prints cannot reach the answer, which it
writes to a file in a private folder that the checker names in the request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from spec_protocols.gate._checkers._runtime._probe_channel import ClassVerdict, ProbeClass, ProbeRelease
from spec_protocols.gate._codec import decode, encode, write_atomically
from spec_protocols.gate._contract import CallShape, ServerFlag
from spec_protocols.gate._findings import ReplayFinding

__all__ = ["NO_REGISTRATION_NOTE", "ReplayAnswer", "ReplayRequest", "ReplayResult", "read_answer", "read_request", "request_text", "write_answer"]

#: The note of a class that no registration reaches: the replay replays what a plugin hands sglang.
NO_REGISTRATION_NOTE = "no registration the replay could load reaches it: it replays what a plugin hands sglang"


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """What the driver is asked."""

    search_roots: tuple[str, ...]
    answer_file: str
    #: The modules to import, as sglang's plugin loader would import the plugin's.
    modules: tuple[str, ...]
    #: The classes the run checks (each result names one of them).
    classes: tuple[ProbeClass, ...]
    release: ProbeRelease = field(default_factory=ProbeRelease)
    #: Functions (``module:function``) that register an algorithm when called
    #: with no argument, the plugin's ``register()`` entry points read from its
    #: source: called, as sglang's loader calls an entry point, when importing
    #: the module registered nothing.
    register_functions: tuple[str, ...] = ()
    #: Branch -> SpecWorker member -> how the scheduler calls it on that branch
    #: (``ReleaseTerms.branch_shapes``): the replay knows the branch the
    #: registered algorithm runs, from the algorithm object itself.
    branch_shapes: Mapping[str, Mapping[str, CallShape]] = field(default_factory=dict[str, Mapping[str, CallShape]])
    #: SpecWorker member -> the one branch the release uses it on
    #: (``ReleaseTerms.branch_only``): an algorithm the replay finds runs only
    #: the synchronous loop (its create_worker refuses overlap) is not held to
    #: what only the overlap loops use.
    branch_only: Mapping[str, str] = field(default_factory=dict[str, str])
    #: SpecWorker member -> the server flags behind each of its uses
    #: (``ReleaseTerms.flag_only``): an algorithm whose
    #: ``validate_server_args`` refuses every way to it is not held to it.
    flag_only: Mapping[str, tuple[tuple[ServerFlag, ...], ...]] = field(
        default_factory=dict[str, tuple[tuple[ServerFlag, ...], ...]]
    )
    #: Every server flag the release's terms name (``flag_only``'s and the
    #: defaults' ``relies_on_flags``): the replay says which settings of
    #: them an algorithm's ``validate_server_args`` refuses (evidence
    #: ``("option=value", "refused")``), which rules out a static checker's
    #: need behind them.
    flags: tuple[ServerFlag, ...] = ()
    #: Algorithm name -> the checked classes the plugin's source registers
    #: under it (``Registration.name``): whose failure a registration that
    #: yields no class (a factory ``create_worker`` cannot call) is.
    registered: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])


@dataclass(frozen=True, slots=True)
class ReplayResult(ClassVerdict):
    """The replay's verdict on one class, as it drove the instance sglang built."""

    findings: tuple[ReplayFinding, ...] = ()
    note: str | None = None
    #: What the replay saw on the instance sglang built: (member, claim)
    #: pairs, ``claim`` one of ``exists``, ``call``, ``kind``; the verdict
    #: rule (:mod:`spec_protocols.gate._verdicts`) sets a static checker's
    #: "missing" or "cannot take the call" against them. ``unreached``: the
    #: registration's ``validate_server_args`` refuses every server that
    #: uses the member (``ReplayRequest.flag_only``), so sglang never does.
    evidence: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ReplayAnswer:
    results: tuple[ReplayResult, ...] = ()
    #: Why the replay could not run at all (sglang not importable, say); then no results.
    failure: str | None = None
    #: Per algorithm the plugin registered: what the replay drove, in words (for a note).
    algorithms: Mapping[str, str] = field(default_factory=dict[str, str])
    #: A driver started in advance (the watch mode's) that cannot stand for a
    #: fresh one this round, and why: the checker runs a fresh one instead.
    unusable: str | None = None


def request_text(request: ReplayRequest) -> str:
    return json.dumps(encode(request))


def read_request(text: str) -> ReplayRequest:
    return decode(ReplayRequest, json.loads(text))


def write_answer(path: Path, answer: ReplayAnswer) -> None:
    write_atomically(path, json.dumps(encode(answer)))


def read_answer(path: Path) -> ReplayAnswer:
    return decode(ReplayAnswer, json.loads(path.read_text(encoding="utf-8")))
