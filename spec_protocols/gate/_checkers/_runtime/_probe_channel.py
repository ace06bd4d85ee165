"""What the runtime checker and its probe process say to each other, as frozen records.

:mod:`._runtime` (the checker) and :mod:`._runtime_probe` (the subprocess
that imports the target) both import this module, and nothing else of each
other: it holds the records and the one way each is written and read,
through the gate's codec (:mod:`spec_protocols.gate._codec`). It imports
the standard library, the codec, the model and the release terms' own
:class:`~spec_protocols.gate._contract._terms.CallShape` (one definition of
how a release calls a method), nothing that runs code of the target's or of
sglang: the probe loads it before any target code runs.

The channel, one run of one probe:

* **the request** (:class:`ProbeRequest`, on the probe's stdin): where to
  import from, the two files to answer in, the classes to check
  (:class:`ProbeClass`) and what the sglang release checked against asks
  (:class:`ProbeRelease`);
* **the progress file**, appended one line per record with one ``write``
  each (:func:`progress_line`): :class:`Importing` before each import,
  :class:`Checking` before each class, :class:`Settled` once a class is done,
  :class:`ProbeFailed` for the probe's own failure (a bug). A probe that dies
  leaves what it settled and what it was doing; a line cut short by the
  death is skipped (:func:`read_progress`);
* **the result file** (:class:`ProbeAnswer`), written once at the end,
  atomically: every class's results. Its presence is what "the probe
  finished" means.

Both sides are the same version of this package, so the format carries no
version; a record that does not decode is one cut short.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from spec_protocols.gate._codec import decode, encode, write_atomically
from spec_protocols.gate._contract import CallShape
from spec_protocols.gate._model import Verdict
from spec_protocols.gate._findings import RuntimeFinding

__all__ = [
    "Checking",
    "ClassVerdict",
    "Importing",
    "ProbeAnswer",
    "ProbeClass",
    "ProbeFailed",
    "ProbeRelease",
    "ProbeRequest",
    "ProbeResult",
    "Progress",
    "Settled",
    "progress_line",
    "read_answer",
    "read_progress",
    "read_request",
    "request_text",
    "write_answer",
]


@dataclass(frozen=True, slots=True)
class ProbeClass:
    """One class to import and check."""

    #: Names the class in progress records and results (its position in the first request).
    index: int
    module: str
    qualname: str
    #: Its dotted name, as checks name it.
    target: str
    protocols: tuple[str, ...]
    may_be_abstract: bool = False
    #: What its registrations hold it to (``gate._roles.registered_terms``):
    #: SpecWorker member -> each call the scheduler makes of it on the
    #: branches the registered algorithm runs, in place of the protocol's
    #: signature (``supports_overlap=False``: ``pp_proxy_tensors=``, no ``on_publish=``);
    calls: Mapping[str, tuple[CallShape, ...]] = field(default_factory=dict[str, tuple[CallShape, ...]])
    #: the capability protocols its ``spec_class`` turns on (``SupportsGrammarOverlap``);
    capabilities: tuple[str, ...] = ()
    #: and the keywords a ``functools.partial`` that ``create_worker`` returns binds for the constructor.
    bound_keywords: tuple[str, ...] = ()
    #: The function its registrations build it through (``Registration.builder``,
    #: "module.function"): the scheduler's constructor call is made of that.
    builder: str = ""
    #: The factories its registrations register ("module.function",
    #: ``Registration.factory``), for a role that holds them
    #: (``RolePolicy.holds_factories``: the algorithm object's create_worker calls them).
    factories: tuple[str, ...] = ()
    #: Spec worker members its registrations never reach (``RegisteredTerms.unreached``:
    #: used only on a scheduler branch the registered algorithm never runs): not checked.
    unreached: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProbeRelease:
    """What the sglang release checked against asks; the default, the newest
    supported release's protocols, whole."""

    #: Protocol -> the members the release calls (only those are judged); absent: all.
    members: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    #: Members no protocol defines that the release calls: checked for presence.
    presence: tuple[str, ...] = ()
    #: Hook -> the capability protocol that writes sglang's call of it on BaseSpecWorker instances.
    nominal_hooks: Mapping[str, str] = field(default_factory=dict[str, str])
    #: The keywords of the scheduler's call of a spec worker class; None: SpecWorkerFactory's.
    constructor_keywords: tuple[str, ...] | None = None
    #: The keywords of build_draft_tp_worker's call of draft_worker_cls; None: DraftWorkerFactory's.
    factory_keywords: tuple[str, ...] | None = None
    #: The members build_draft_tp_worker assigns on the draft it built (``ReleaseTerms.draft_factory_writes``).
    factory_writes: tuple[str, ...] = ()
    #: Protocol -> hook -> how sglang calls a hook it finds with ``getattr``
    #: (``ReleaseTerms.hooks``; only those called): held by a class that defines it.
    hook_calls: Mapping[str, Mapping[str, CallShape]] = field(default_factory=dict[str, Mapping[str, CallShape]])
    #: Protocol -> the hooks sglang iterates (a method is not iterable).
    hook_iterated: Mapping[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    #: Protocol -> method -> how a release outside the supported range calls
    #: it (``ReleaseTerms.call_shapes``), in place of the protocol's signature.
    call_shapes: Mapping[str, Mapping[str, CallShape]] = field(default_factory=dict[str, Mapping[str, CallShape]])


@dataclass(frozen=True, slots=True)
class ProbeRequest:
    """What one probe is asked (its stdin)."""

    search_roots: tuple[str, ...]
    result_file: str
    progress_file: str
    classes: tuple[ProbeClass, ...]
    release: ProbeRelease = field(default_factory=ProbeRelease)
    #: Whether to report, with each module's first class, the worker classes
    #: the import made that no request names (``type(...)``, a factory call,
    #: a class made in a loop: what no reading of the source lists).
    scan: bool = False


@dataclass(frozen=True, slots=True)
class ClassVerdict:
    """One class against one protocol, as a checker that imports the class
    sends it back over its channel: each checker's result adds its own
    findings (:class:`ProbeResult`, the replay's ``ReplayResult``)."""

    target: str
    protocol: str
    verdict: Verdict


@dataclass(frozen=True, slots=True)
class ProbeResult(ClassVerdict):
    """The runtime checker's verdict on one class, with what it found."""

    findings: tuple[RuntimeFinding, ...] = ()
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Importing:
    """The probe is about to import ``module``."""

    module: str


@dataclass(frozen=True, slots=True)
class Checking:
    """The probe is about to check the class of ``index``."""

    index: int
    target: str


@dataclass(frozen=True, slots=True)
class Settled:
    """The class of ``index`` is done."""

    index: int
    results: tuple[ProbeResult, ...]


@dataclass(frozen=True, slots=True)
class ProbeFailed:
    """The probe's own failure (not the target's), in one line."""

    error: str


Progress = Importing | Checking | Settled | ProbeFailed


@dataclass(frozen=True, slots=True)
class _Line:
    """One line of the progress file (the records' fields tell them apart)."""

    record: Progress


@dataclass(frozen=True, slots=True)
class ProbeAnswer:
    """The result file: every class's results, by its index."""

    results: Mapping[int, tuple[ProbeResult, ...]]


def request_text(request: ProbeRequest) -> bytes:
    return json.dumps(encode(request)).encode()


def read_request(text: str | bytes) -> ProbeRequest:
    """The request; ``Undecodable`` (a ``ValueError``) when it is not one."""
    return decode(ProbeRequest, json.loads(text))


def progress_line(record: Progress) -> bytes:
    """``record`` as one line of the progress file, for one ``write``."""
    return (json.dumps(encode(_Line(record))) + "\n").encode()


def read_progress(text: str) -> list[Progress]:
    """The records of a progress file, in order; a line that does not decode
    (cut short by the probe's death) is skipped."""
    records: list[Progress] = []
    for line in text.splitlines():
        try:
            records.append(decode(_Line, json.loads(line)).record)
        except ValueError:
            continue
    return records


def write_answer(path: str, answer: ProbeAnswer) -> None:
    write_atomically(Path(path), json.dumps(encode(answer)))


def read_answer(path: Path) -> ProbeAnswer | None:
    """The finished probe's answer; None when it did not finish (absent) or it cannot be read."""
    try:
        return decode(ProbeAnswer, json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
