"""The plain data that flows between the gate's stages.

    targets -> discovery -> harness -> checkers -> verdicts -> report

Every type here is a frozen dataclass (or an enum), so each stage can be built
and tested alone, with no checker running. Nothing here imports a checker.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "ABSTRACT_BASE_NOTE",
    "Check",
    "CheckerCrashed",
    "CheckerOutcome",
    "CheckerSkip",
    "ClassRole",
    "DEFAULT_SPEC_CLASS",
    "Delegation",
    "DiscoveredClass",
    "Discovery",
    "GateError",
    "GateReport",
    "InjectionSite",
    "MemberDefinition",
    "Problem",
    "ProtocolName",
    "ReadSet",
    "Registration",
    "ResolvedTarget",
    "Result",
    "SglangChecked",
    "SkipReason",
    "Verdict",
]

#: The class of a plugin's algorithm object when its registration passes no
#: ``spec_class`` (``SpeculativeAlgorithm.register``'s default, spec_registry.py).
DEFAULT_SPEC_CLASS = "sglang.srt.speculative.spec_registry.CustomSpecAlgo"

#: The note every checker gives an intentional abstract base (see
#: DiscoveredClass.may_be_abstract), word for word, so that a report shows it once.
ABSTRACT_BASE_NOTE = "abstract base: sglang does not instantiate it; its concrete subclasses are checked"



class ProtocolName(enum.StrEnum):
    """A protocol the gate holds a class to, by its name in :mod:`spec_protocols`.

    A ``str`` whose value is the name itself: ``Check.protocol``, the reports,
    baselines and the verdict cache read and write the same text.
    The capability protocols (``Supports...``) are named in
    :data:`spec_protocols._protocols.PROTOCOL_NAMES`; what each role asks of a
    class is :mod:`spec_protocols.gate._roles`.
    """

    SPEC_WORKER = "SpecWorker"
    DRAFT_WORKER = "DraftWorker"
    DRAFT_WORKER_FACTORY = "DraftWorkerFactory"
    SPEC_WORKER_FACTORY = "SpecWorkerFactory"
    INJECTABLE_DRAFT_WORKER = "InjectableDraftWorker"
    SPEC_ALGORITHM = "SpecAlgorithm"
    WORKER_CLASS_FACTORY = "WorkerClassFactory"


class GateError(Exception):
    """A usage or environment error: the gate prints one line and exits 2.

    Raised for a target that does not exist, a syntax error in a target file,
    a target with no workers, a checker that is missing, crashes or times out.
    Never for a non-conforming worker: that is a verdict.
    """


class CheckerCrashed(GateError):
    """A checker that stopped without verdicts (a crash, an exit status it
    never gives for a verdict, output that is not its report).

    The message is one line: the checker, how it ended, its first error
    whole, and the next step. The pipeline keeps the run's work folder (the
    harness, the checker's configuration and what it printed) for a bug
    report and names it (:attr:`kept`).
    """

    def __init__(
        self,
        checker: str,
        ended: str,
        first_error: str,
        output: str = "",
        *,
        others: tuple[str, ...] = (),
        kept: str | None = None,
        label: str | None = None,
    ) -> None:
        self.checker = checker
        #: How the message names the checker (default: its name).
        self.label = label if label is not None else checker
        self.ended = ended
        self.first_error = first_error
        #: Everything the checker printed, for the kept folder.
        self.output = output
        #: The other checkers of the run: the gate without this one.
        self.others = others
        #: The folder kept for a bug report, once the pipeline has kept it.
        self.kept = kept
        super().__init__(self._line())

    def _line(self) -> str:
        without = " ".join(f"--checker {name}" for name in self.others)
        steps = [f"run without it ({without})" if without else "run with another checker (--checker NAME)"]
        if self.kept is not None:
            steps.append(f"report it with {self.kept} (its configuration, input and output)")
        return f"{self.label} crashed ({self.ended}): {self.first_error}; next: {', or '.join(steps)}"

    def keeping(self, folder: str, others: tuple[str, ...]) -> CheckerCrashed:
        """The same crash, naming the folder kept for it and the run's other checkers."""
        return CheckerCrashed(
            self.checker, self.ended, self.first_error, self.output, others=others, kept=folder, label=self.label
        )


class ClassRole(enum.Enum):
    """Why discovery picked a class, which decides the protocol it is checked against."""

    SPEC_WORKER = "spec_worker"  # subclass of BaseSpecWorker / SpecWorkerBase -> SpecWorker
    DRAFT_WORKER = "draft_worker"  # subclass of EagleDraftWorkerBase / TpModelWorker -> DraftWorker
    INJECTED = "injected"  # passed as draft_worker_cls -> DraftWorkerFactory
    #: A registration's algorithm object: its ``spec_class``, or sglang's
    #: ``CustomSpecAlgo`` for a registration that passes none -> SpecAlgorithm.
    ALGORITHM = "algorithm"

    @property
    def protocol(self) -> ProtocolName:
        """The protocol a class in this role is checked against (what else the
        role asks of it: :func:`spec_protocols.gate._roles.policy`)."""
        return _ROLE_PROTOCOL[self]


_ROLE_PROTOCOL: Mapping[ClassRole, ProtocolName] = {
    ClassRole.SPEC_WORKER: ProtocolName.SPEC_WORKER,
    ClassRole.DRAFT_WORKER: ProtocolName.DRAFT_WORKER,
    ClassRole.INJECTED: ProtocolName.DRAFT_WORKER_FACTORY,
    ClassRole.ALGORITHM: ProtocolName.SPEC_ALGORITHM,
}


class Verdict(enum.Enum):
    """One checker's (or the gate's) answer for one (class, protocol).

    ``PASS``: the checker saw the class's real members and found no problem.
    ``FAIL``: it found at least one problem.
    ``UNVERIFIED``: it could not see the class (an untyped import, an
    unresolved base: the class was ``Any``/``Unknown`` to it). Fails the gate.
    ``SKIPPED``: the runtime checker could not import the target (e.g. it
    needs CUDA). Does not fail the gate by itself; the static checkers still
    decide.
    """

    PASS = "pass"
    FAIL = "fail"
    UNVERIFIED = "unverified"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class ResolvedTarget:
    """A TARGET argument, located on disk without importing anything.

    ``modules`` maps each dotted module name to scan to its source file.
    ``search_root`` is the directory that must be on the import path for those
    names to resolve (a path target's parent, or the sys.path entry that holds
    the package); ``class_name`` is set for ``module:Class``.
    """

    spec: str
    modules: Mapping[str, Path]
    search_root: Path
    class_name: str | None = None
    #: Files of a package target that cannot be imported by name, as notes.
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MemberDefinition:
    """Where a class gets one of its members: the ``def`` (or assignment) that
    an attribute lookup on the class finds, in the class itself or in the
    base it inherits it from (sglang's included), as the source writes it."""

    name: str
    #: The dotted name of the class whose body defines it.
    owner: str
    file: Path
    #: The ``def`` line (not a decorator's), or the assignment's.
    line: int
    #: The definition as an author reads it: ``Owner.name(self, x: int) -> R``
    #: (see :mod:`spec_protocols.gate._signatures`).
    text: str


@dataclass(frozen=True, slots=True)
class Delegation:
    """A ``__getattr__`` that hands every name it is asked on to one
    attribute (``return getattr(self.target_worker, name)``), read from the
    source (:mod:`spec_protocols.gate._discovery._delegation`)."""

    #: The attribute it delegates to (``target_worker``).
    attribute: str
    #: The dotted name of the class that attribute holds, as annotated.
    holds: str
    #: What an instance of that class certainly has: its class bodies'
    #: members and the attributes its ``__init__`` always sets.
    members: frozenset[str]


@dataclass(frozen=True, slots=True)
class Registration:
    """One registration through which sglang builds a class, read from the
    plugin's source: ``SpeculativeAlgorithm.register(name, **flags)`` applied
    to a factory ``(server_args) -> cls`` (``speculative/spec_info.py``,
    stored by ``spec_registry.register_algorithm``), the factory's returns,
    and what the ``spec_class`` (a ``CustomSpecAlgo`` subclass) overrides.
    ``Scheduler.maybe_init_draft_worker`` calls
    ``spec_algorithm.create_worker(server_args)`` and builds what it returns
    (``managers/scheduler.py``): a class reached so is instantiated, whatever
    its bases say."""

    #: The algorithm's name: a literal's value, else its source text.
    name: str
    #: Where the registration is written, as "file:line".
    site: str
    #: The keywords written as literals (``supports_overlap=False``), in source order.
    flags: tuple[tuple[str, bool | int | float | str | None], ...] = ()
    #: Keywords given a value that is not a literal; ``"**"`` for a ``**mapping`` unpacked into the call.
    dynamic: tuple[str, ...] = ()
    #: The dotted name of ``spec_class`` when the plugin defines it (``None``:
    #: sglang's ``CustomSpecAlgo``, or a class the gate could not read).
    spec_class: str | None = None
    #: Whether ``spec_class`` replaces ``create_worker`` without delegating to
    #: ``CustomSpecAlgo.create_worker`` (whose check of the overlap flag it then skips).
    replaces_create_worker: bool = False
    #: The ``supports_*`` predicates ``spec_class`` overrides to anything but a
    #: literal ``False`` (``supports_grammar_overlap``).
    capabilities: tuple[str, ...] = ()
    #: Keywords a ``functools.partial`` that ``create_worker`` returns binds
    #: around the class: the scheduler's call supplies them through it.
    bound_keywords: tuple[str, ...] = ()
    #: The dotted name of the function the factory returns, where that
    #: function builds the class (``return _build`` with ``def _build(*,
    #: server_args, ...) -> Worker``): the scheduler's
    #: ``DraftWorkerClass(**draft_worker_kwargs)`` calls it, not the class.
    builder: str | None = None
    #: The source text of the ``spec_class`` keyword, when the registration
    #: passes one (``None``: sglang's default, ``CustomSpecAlgo``, is the
    #: algorithm object); :attr:`spec_class` is what the gate could read of it.
    spec_class_text: str | None = None
    #: The dotted name of the registered factory, where it is a function of
    #: the module (``None``: a lambda, a nested function, a name the gate
    #: could not follow): ``CustomSpecAlgo.create_worker`` calls it as
    #: ``self.factory(server_args)`` (spec_registry.py), held to ``WorkerClassFactory``.
    factory: str | None = None

    @property
    def algorithm(self) -> str:
        """The dotted name of the class the registration's algorithm object
        is an instance of, where the gate can name it: the ``spec_class``
        read, sglang's ``CustomSpecAlgo`` where none is passed; ``""`` for a
        ``spec_class`` the gate could not read."""
        if self.spec_class is not None:
            return self.spec_class
        return DEFAULT_SPEC_CLASS if self.spec_class_text is None else ""

    def keywords(self) -> dict[str, object]:
        """The registration's keywords as ``ReleaseTerms.branches_for`` reads
        them: the literals, and a non-literal one as its own (truthy) name."""
        found: dict[str, object] = dict(self.flags)
        found.update((name, f"<{name}>") for name in self.dynamic if name != "**")
        return found


@dataclass(frozen=True, slots=True)
class DiscoveredClass:
    """A class the gate will check, found by reading source (never importing)."""

    module: str
    qualname: str
    file: Path
    line: int
    roles: frozenset[ClassRole]
    #: Dotted names of the class's resolved bases, nearest first (for reports).
    bases: tuple[str, ...] = ()
    #: Where the class is injected as a draft worker class, as "file:line".
    injection_sites: tuple[str, ...] = ()
    #: Whether the class may be abstract without failing: it declares abstract
    #: members of its own (or lists ``ABC`` among its bases), or another
    #: checked class subclasses it, and nothing the plugin writes hands it to
    #: sglang to build (no :attr:`registrations`). sglang never instantiates
    #: such a base itself, so "abstract" is a note on its verdict, not a
    #: problem. Any other class that is abstract fails: sglang would instantiate it.
    may_be_abstract: bool = False
    #: The names the class and its bases below sglang's roots define (methods,
    #: properties, class attributes): what it does *not* inherit from
    #: ``BaseSpecWorker``. ``None`` when one of those bases could not be read.
    overrides: frozenset[str] | None = None
    #: Each name the class and its bases define, as a lookup on the class
    #: finds it (nearest in the method resolution order): problems are
    #: reported at the member's own ``def``, and say what the class has.
    members: tuple[MemberDefinition, ...] = ()
    #: The registrations that hand the class to sglang's scheduler (a class
    #: one reaches is built by the scheduler, so it may not be abstract); empty
    #: when none was read (it may still be registered in a way the source does not show).
    registrations: tuple[Registration, ...] = ()
    #: The checked classes whose own code injects this one as
    #: ``draft_worker_cls`` (dotted names): ``build_draft_tp_worker`` builds it
    #: inside their constructor, so a class that fails the factory call fails them too.
    injected_by: tuple[str, ...] = ()
    #: The lines of its decorators that are spec_protocols' own class
    #: decorators (``spec_worker_class``, ``draft_worker_class``), as
    #: discovery resolved them: what a checker says there is the IDE's view
    #: of the pinned release, not the class's problem on the release checked.
    own_decorator_lines: tuple[int, ...] = ()
    #: Its bases imported from an sglang module that the sglang checked
    #: against does not have: ``(base, module)``. Such a class cannot be
    #: imported on that release; it fails, whatever a checker made of the
    #: unresolved base (:func:`spec_protocols.gate._verdicts.combine`).
    missing_bases: tuple[tuple[str, str], ...] = ()
    #: The names an ``__init__`` along its bases binds on ``self``: members an
    #: instance has that no class body defines.
    instance_attributes: frozenset[str] = frozenset()
    #: Its ``__getattr__``, when that delegates to one attribute the gate can read.
    delegation: Delegation | None = None

    def definition(self, name: str | None) -> MemberDefinition | None:
        """The definition a lookup of ``name`` on the class finds; None when
        neither the class nor a base the gate read defines it."""
        return next((m for m in self.members if m.name == name), None)

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.qualname}"

    @property
    def checks(self) -> tuple[Check, ...]:
        """One check per protocol its roles ask for, in a fixed order."""
        return tuple(Check(self.dotted, p) for p in sorted({role.protocol for role in self.roles}))


@dataclass(frozen=True, slots=True)
class InjectionSite:
    """A place where an expression that is not a plain class reference is
    injected as ``draft_worker_cls`` (a ``functools.partial``, a factory
    function, a lambda, ``self.attr``, a class defined in a function, a
    conditional expression...).

    Discovery cannot tell what such an expression builds; the static checkers
    can, in place: each site is checked against ``DraftWorkerFactory`` where it
    stands (see :mod:`spec_protocols.gate._harness._sites`). Plain class references are
    checked as classes instead (:class:`DiscoveredClass` with the ``INJECTED``
    role).
    """

    #: The check's target: ``module.Scope:draft_worker_cls`` (``#2``, ``#3``
    #: for further sites in the same scope), ``Scope`` being the qualified
    #: name of the enclosing function or class, or ``<module>``.
    target: str
    module: str
    file: Path
    line: int
    col: int
    end_line: int
    end_col: int
    #: The expression's source text, for messages.
    text: str


@dataclass(frozen=True, slots=True)
class Discovery:
    """Everything discovery found: the classes and the modules that define them
    (plus the modules of their base classes, which the checkers must read
    from source)."""

    classes: tuple[DiscoveredClass, ...]
    #: module name -> file, for every module the static checkers must analyse.
    source_modules: Mapping[str, Path]
    #: directories to put on the checkers' search path (path targets).
    search_roots: tuple[Path, ...]
    #: draft_worker_cls expressions that are not plain class references.
    sites: tuple[InjectionSite, ...] = ()
    #: What discovery passed over and the reader should know: a file of a
    #: package that cannot be parsed or imported by name, a class defined only
    #: on another Python version. Shown in every report; never a failure.
    notes: tuple[str, ...] = ()
    #: Every module the source modules import (read while discovering, so
    #: that no later stage parses them again).
    imported_modules: frozenset[str] = frozenset()
    #: Target modules whose import-time code makes classes by a call
    #: (``type(...)``, a class factory): no reading of the source lists their
    #: workers, so the runtime checker imports each and reports the worker
    #: classes it finds there (``_checkers/_runtime_scan``).
    runtime_built: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, order=True)
class Check:
    """One unit of verdict: a class against a protocol."""

    target: str  # dotted path of the class
    protocol: str


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing a checker found wrong (or could not see) for a Check."""

    checker: str
    member: str | None
    message: str
    file: str | None = None
    line: int | None = None
    #: A blind spot, not a failure: the checker could not see what it needed
    #: (the class or a member was Any to it). Never accepted by a baseline.
    unverified: bool = False
    #: A blind spot of a construct the checker cannot model (attrs' generated
    #: ``__init__``, ``functools.cached_property``, a member reached through
    #: ``__getattr__``): where another checker passes the check, the gate passes it.
    unmodelled: bool = False
    #: What the problem says of the member, where the instance sglang builds
    #: can settle it: ``exists`` (it is missing), ``kind`` (a method where a
    #: value is read, or the other way round), ``call`` (it cannot take
    #: sglang's call: its arity, keywords, sync or async). None: a type, or
    #: anything else no instance settles. The replay's evidence decides
    #: these (:func:`spec_protocols.gate._verdicts.combine`); never rendered.
    claim: str | None = None
    #: What to change in the class, in words (``rename gpu to gpu_id``), where
    #: the finding says it plainly (:func:`spec_protocols.gate._findings.change`);
    #: the text report shows it under the problem. None: the message says it.
    change: str | None = None


@dataclass(frozen=True, slots=True)
class CheckerOutcome:
    """What one checker said about every Check of a run."""

    checker: str
    verdicts: Mapping[Check, Verdict]
    problems: Mapping[Check, tuple[Problem, ...]]
    seconds: float = 0.0
    #: Why the checker skipped (runtime checker without importable target).
    notes: Mapping[Check, str] = field(default_factory=dict[Check, str])
    #: The version of the checker that gave these verdicts.
    version: str = ""
    #: The verdicts may not repeat on the same input (a runtime probe died,
    #: killed for memory, say): the verdict cache does not keep them.
    transient: bool = False
    #: What the checker saw on the instance sglang builds (the replay): per
    #: check, (member, claim) pairs, ``claim`` one of ``exists``, ``kind``,
    #: ``call``; a static checker's contrary problem yields to them
    #: (:func:`spec_protocols.gate._verdicts.combine`).
    evidence: Mapping[Check, tuple[tuple[str, str], ...]] = field(default_factory=dict[Check, tuple[tuple[str, str], ...]])
    #: The checks skipped because the checker does not apply to them (the
    #: replay on a class no registration reaches), not because it could not
    #: run: they never make the run's "could not import" note.
    inapplicable: tuple[Check, ...] = ()


@dataclass(frozen=True, slots=True)
class Result:
    """The gate's answer for one Check, all checkers combined
    (:func:`spec_protocols.gate._verdicts.combine`), with each checker's own verdict."""

    check: Check
    verdict: Verdict
    checkers: Mapping[str, Verdict]
    problems: tuple[Problem, ...]
    #: Problems a baseline entry accepted (reported, not failing).
    baselined: tuple[Problem, ...] = ()
    #: What the reader should know and is not a problem: why a checker
    #: skipped, that the class is an abstract base. Never baselined.
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SglangChecked:
    """The sglang release a run checked against, and where its source was read."""

    release: str
    #: ``installed`` (the import system's), ``path`` (``--sglang DIR``) or
    #: ``fetched`` (``--sglang RELEASE``, into the cache).
    origin: str
    #: The folder holding ``sglang/``.
    path: str
    #: The supported release the protocols were pinned to; None outside the range.
    pin: str | None = None

    def describe(self) -> str:
        return f"sglang {self.release} ({self.origin}: {self.path})"


class SkipReason(enum.Enum):
    """Why a run left a chosen checker out."""

    #: ``--sglang`` names a release or tree read from source, not the sglang
    #: the import system loads: a checker that imports the target cannot judge it.
    SGLANG_NOT_INSTALLED = "sglang_not_installed"


@dataclass(frozen=True, slots=True)
class CheckerSkip:
    """Chosen checkers a run left out, and why (its note says it in words)."""

    checkers: tuple[str, ...]
    reason: SkipReason
    #: The sglang release checked against.
    release: str
    #: The checkers that decided without them.
    kept: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GateReport:
    """A whole run: what every output format renders."""

    results: tuple[Result, ...]
    checkers: tuple[str, ...]
    timings: Mapping[str, float]
    #: Run-level notes: discovery's notes, and a checker that skipped everything.
    notes: tuple[str, ...] = ()
    #: checker name -> the version that gave its verdicts (a checker upgrade
    #: changes verdicts, so a report says which one spoke).
    checker_versions: Mapping[str, str] = field(default_factory=dict[str, str])
    #: The sglang release whose contract the run checked; None: no sglang found.
    sglang: SglangChecked | None = None
    #: What the run checked, as given (or the embedded default it chose).
    targets: tuple[str, ...] = ()
    #: The checkers whose verdicts were reused from the verdict cache (for
    #: some group of targets, at least), in report order. Not rendered: a
    #: report does not depend on the cache (the CLI says it on stderr).
    reused: tuple[str, ...] = ()
    #: Chosen checkers the run left out, and why.
    skipped: tuple[CheckerSkip, ...] = ()
    #: The run's checkers in the order their words lead where a view shows
    #: one problem (by each checker's rank); not rendered.
    lead: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(r.verdict is Verdict.PASS for r in self.results)

    def summary(self) -> dict[str, int]:
        counts = {v.value: 0 for v in (Verdict.PASS, Verdict.FAIL, Verdict.UNVERIFIED)}
        for r in self.results:
            counts[r.verdict.value] += 1
        counts["total"] = len(self.results)
        return counts


@dataclass(frozen=True, slots=True)
class ReadSet:
    """The files and folders a run's verdicts depend on (the watch mode polls them)."""

    files: frozenset[Path] = frozenset()
    #: Folders listed on every poll, recursively (``*.py``): target packages.
    folders: frozenset[Path] = frozenset()
    #: Folders listed now and then: sglang's package.
    slow_folders: frozenset[Path] = frozenset()

    def __len__(self) -> int:
        return len(self.files) + len(self.folders) + len(self.slow_folders)

    def __or__(self, other: ReadSet) -> ReadSet:
        return ReadSet(self.files | other.files, self.folders | other.folders, self.slow_folders | other.slow_folders)
