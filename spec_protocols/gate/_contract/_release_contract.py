"""The contract of one sglang release, as data: what sglang itself does with a worker.

Read from a release's own source by :mod:`~spec_protocols.gate._contract._extract`
(never imported, never transcribed by hand). Every use is located (file,
function, line: lines move by up to a thousand between releases, so a use is
*identified* by file and function) and classified:

``required``    every algorithm reaches it on the serving path: a worker must have it
``guarded``     read through ``getattr(w, "x", default)`` / ``hasattr`` (or inside
                ``if hasattr(...)``): a worker may lack it
``algorithm``   only under ``spec_algorithm.is_<algo>()`` (or an equivalent
                algorithm predicate): one algorithm's business
``isinstance``  only for ``isinstance(w, BaseSpecWorker)`` workers
``private``     a name with a leading underscore
``conditional`` on a path a server option selects, or a keyword added only under
                a condition (``grammar_barrier`` for grammar-overlap algorithms)
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "OVERLAP",
    "SYNCHRONOUS",
    "AlgorithmObject",
    "BuiltInWorker",
    "Classification",
    "Contract",
    "DefaultNeeds",
    "Hook",
    "HookUse",
    "HookUseKind",
    "ServerFlag",
    "Site",
    "flags_claim",
    "fewest_flags",
    "ruled_out",
    "Use",
    "UseKind",
]

UseKind = Literal["read", "call", "write"]
#: The scheduler's two branches of ``run_batch`` (and of anything else under
#: ``self.enable_overlap``): ``overlap`` where the scheduler's
#: ``enable_overlap`` holds, ``synchronous`` where it does not. A use on
#: neither is made on both. Which flag selects them: see :attr:`Contract.overlap_flag`.
OVERLAP = "overlap"
SYNCHRONOUS = "synchronous"
#: What sglang does with a hook's value once it has looked it up:
#: ``call`` (with :attr:`HookUse.positional` positionals and :attr:`HookUse.keywords`),
#: ``iterate`` (a ``for``, a comprehension, ``tuple(x)``/``any(...)``, or a callee that iterates its parameter),
#: ``test`` (truth, ``is None``, ``callable(x)``: any value will do),
#: ``attribute`` (reads or writes :attr:`HookUse.detail` on it),
#: ``value`` (kept, returned, passed somewhere not followed: nothing asked of it).
HookUseKind = Literal["call", "iterate", "test", "attribute", "operand", "value"]
Classification = Literal["required", "guarded", "algorithm", "isinstance", "private", "conditional"]


@dataclass(frozen=True, slots=True, order=True)
class Site:
    """Where a use is: the file relative to ``sglang/srt/``, the enclosing
    ``Class.function`` (or ``function``), and the line in that release."""

    file: str
    function: str
    line: int


@dataclass(frozen=True, slots=True, order=True)
class ServerFlag:
    """A server option a use is made only under: a test of one option (or an
    ``or`` of such tests) that a server started with the defaults fails
    (``get_memory().enable_hierarchical_cache``, ``self.disaggregation_mode
    == DisaggregationMode.DECODE``). Read in
    :mod:`~spec_protocols.gate._contract._extract._server_options`."""

    #: The condition as the source writes it.
    text: str
    #: The settings that make it hold, any one of them: ``(option, value)``,
    #: the value a Python literal (``'decode'``, ``True``, ``2``), or ``""``
    #: where no one value can be named (``!= DisaggregationMode.NULL``).
    settings: tuple[tuple[str, str], ...]
    #: Of the settings' options, those declared with no value (``None``):
    #: sglang decides them at start-up when the server does not (0.5.23
    #: infers ``disaggregation_decode_retraction_backup`` from the decode KV
    #: pool, and may make it ``host_pool`` on a decode server). Refusing the
    #: literal setting does not rule such a flag out: another setting can
    #: make it hold.
    decided_at_start: tuple[str, ...] = ()

    def refusable(self) -> bool:
        """Whether refusing each of its settings rules the flag out: every
        setting names a value, of an option no server leaves to sglang."""
        return bool(self.settings) and all(v and o not in self.decided_at_start for o, v in self.settings)

    def words(self) -> str:
        """The settings as a server is started with them: ``--enable-hierarchical-cache``,
        ``--disaggregation-mode decode``; alternatives joined by "or"."""
        said: list[str] = []
        for option, value in self.settings:
            flag = "--" + option.replace("_", "-")
            if value in ("", "True"):
                said.append(flag if value else f"{flag} set otherwise than by default ({self.text})")
            elif value == "False":
                said.append(f"{flag} off")
            else:
                said.append(f"{flag} {value.strip(chr(39))}")
        return " or ".join(dict.fromkeys(said))


def fewest_flags(flags: Collection[ServerFlag]) -> tuple[ServerFlag, ...]:
    """``flags`` (all of which hold) in order, less each one that names no
    value of an option another pins to one (an ``elif`` chain's ``mode !=
    NULL`` beside its ``mode == PREFILL``): the pinned one says it all."""
    pinned = {f.settings[0][0] for f in flags if len(f.settings) == 1 and f.settings[0][1]}
    return tuple(
        sorted(f for f in flags if not (f.settings and all(not v and o in pinned for o, v in f.settings)))
    )


#: How a problem says that its use lies behind server flags (``Problem.claim``).
_FLAGS_CLAIM = "behind flags "


def flags_claim(flags: tuple[ServerFlag, ...]) -> str:
    """The claim of a problem whose use lies behind all of ``flags``: what a
    replay that knows which settings the registration refuses can settle
    (:func:`ruled_out`)."""
    return _FLAGS_CLAIM + json.dumps([[list(s) for s in f.settings] if f.refusable() else [] for f in flags])


def ruled_out(claim: str | None, refused: Collection[str]) -> bool:
    """Whether a problem whose claim is ``flags_claim(flags)`` lies behind a
    flag every setting of which is ``refused`` (``option=value`` strings):
    then sglang never makes that use for the registration. False for any
    other claim, and for a flag that is not :meth:`ServerFlag.refusable`."""
    if claim is None or not claim.startswith(_FLAGS_CLAIM):
        return False
    flags = json.loads(claim[len(_FLAGS_CLAIM) :])
    return any(settings and all(value and f"{option}={value}" in refused for option, value in settings) for settings in flags)


@dataclass(frozen=True, slots=True)
class Use:
    """One read, call or write of a member."""

    member: str
    #: What the member is used on: ``spec_worker`` (the scheduler's
    #: ``draft_worker`` / ``model_worker``), ``spec_worker.draft_worker`` /
    #: ``spec_worker.target_worker`` (the spec worker's own draft or target
    #: worker, e.g. ``getattr(spec_worker, "draft_worker", None).draft_runner``:
    #: not a member of the spec worker), ``draft_worker`` and
    #: ``target_worker`` (inside BaseSpecWorker's defaults), ``self`` (a
    #: default's own attribute, e.g. ``_draft_worker``), ``built_draft`` (what
    #: build_draft_tp_worker built).
    receiver: str
    kind: UseKind
    classification: Classification
    site: Site
    #: For a call: how many positional arguments, and the keywords passed.
    positional: int = 0
    keywords: tuple[str, ...] = ()
    #: Keywords passed only under a condition (a conditionally built **kwargs).
    conditional_keywords: tuple[str, ...] = ()
    #: The keywords (of :attr:`keywords` and :attr:`conditional_keywords`) whose
    #: argument is statically certain not to be None: ``on_publish=`` on the
    #: overlap branch, a ``functools.partial(...)`` (managers/scheduler.py
    #: ``Scheduler.run_batch``). Not published in the contract's JSON.
    never_none: tuple[str, ...] = ()
    #: Why it is not ``required``: the guard's source text, in words.
    reason: str = ""
    #: :data:`OVERLAP` / :data:`SYNCHRONOUS`: the use is made only on that
    #: branch of the scheduler; ``""``: on both.
    branch: str = ""
    #: Who skips the use: each ``(algorithms, branch)`` says the enum members
    #: (``NGRAM``) that never reach it, on that branch (``""``: on both), from a
    #: negated predicate on its path (``if not is_ngram():``, the ``else`` of
    #: ``if supports_spec_v2() and self.enable_overlap:``). A plugin's
    #: algorithm is none of them; a built-in worker's own
    #: (:attr:`BuiltInWorker.reach`) may be. Not published in the contract's JSON.
    skipped_by: tuple[tuple[tuple[str, ...], str], ...] = ()
    #: The server flags that all hold on every path to the use (empty: a
    #: server started with the defaults makes it). Published in the JSON as
    #: ``flags``.
    flags: tuple[ServerFlag, ...] = ()
    #: For a call: whether sglang uses the value it returns; False where the
    #: call is a statement (``self.draft_worker.prewarm_sampling()``), whose
    #: value any return type satisfies. Published as ``value`` (``used`` /
    #: ``discarded``) for calls.
    value_used: bool = True
    #: For a call or a read whose value sglang uses: what it does with that
    #: value, followed through locals and into the functions it is passed to
    #: (``runners += self.draft_worker.weight_update_runners()``: an operand
    #: of ``+=``). Published as ``value_uses``.
    value_uses: tuple[HookUse, ...] = ()


@dataclass(frozen=True, slots=True)
class HookUse:
    """One thing sglang does with a value it got from a worker: a hook's
    (:attr:`Hook.uses`) or a member's (:attr:`Use.value_uses`); see
    :data:`HookUseKind`."""

    kind: HookUseKind
    site: Site
    positional: int = 0
    keywords: tuple[str, ...] = ()
    #: The attribute read (``attribute``: ``next_draft_input``) or stored
    #: (``copy_done=``); the operator (``operand``: ``+``, ``+=``); what the
    #: value is passed to or kept in (``value``, ``iterate``, ``test``).
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Hook:
    """A member sglang finds with ``getattr(w, "x", default)`` or ``hasattr(w, "x")``:
    a worker may lack it, but one that has it is used as :attr:`uses` say.

    ``prepare_for_kv_cache_release``: ``getattr(self.model_worker,
    "prepare_for_kv_cache_release", None)``, then called with the request
    (``SchedulerBatchResultProcessor._prepare_kv_cache_release``);
    ``spec_v2_attn_backends``: ``getattr(self.draft_worker,
    "spec_v2_attn_backends", (...,))``, then passed to
    ``decide_needs_cpu_seq_lens``, which iterates it (``Scheduler.init_overlap``).
    """

    member: str
    #: As :attr:`Use.receiver`: ``spec_worker``, ``spec_worker.draft_worker``, ``draft_worker``...
    receiver: str
    #: ``getattr-default``, ``hasattr`` or ``getattr`` (no default: a lookup that raises, for the record).
    lookup: str
    #: The default's source text (``None``, ``()``); ``""`` for ``hasattr``.
    default: str
    #: The lookup.
    site: Site
    uses: tuple[HookUse, ...] = ()
    #: The lookup's classification as a :class:`Use` (``guarded``; ``algorithm``
    #: under one algorithm's predicate, never a plugin's business).
    classification: Classification = "guarded"
    #: As :attr:`Use.branch`.
    branch: str = ""


@dataclass(frozen=True, slots=True)
class DefaultNeeds:
    """A default of sglang's ``BaseSpecWorker`` and what it needs: a worker
    that keeps the default (does not override it) inherits these needs."""

    #: The method or property of BaseSpecWorker.
    method: str
    #: Its uses of ``self.draft_worker``, ``self.target_worker`` and ``self``.
    needs: tuple[Use, ...]
    #: Other ``self.<method>()`` / ``self.<property>`` defaults it relies on
    #: (their needs are this default's needs too).
    relies_on: tuple[str, ...] = ()
    #: Those of ``relies_on`` it reaches only under an algorithm predicate
    #: (``if spec_algorithm.is_dflash(): self._x()``): a plugin's algorithm,
    #: for which every built-in predicate is false, never reaches them.
    relies_on_algorithm: tuple[str, ...] = ()
    #: Those of ``relies_on`` it reaches only behind server flags, with the
    #: flags (``_build_hicache_draft_plan``: ``_draft_model_runners``, behind
    #: ``--enable-hierarchical-cache or ...``): a worker inherits their needs
    #: only where a server sets them.
    relies_on_flags: tuple[tuple[str, tuple[ServerFlag, ...]], ...] = ()


@dataclass(frozen=True, slots=True, order=True)
class BuiltInWorker:
    """A spec worker class of sglang itself: one that
    ``SpeculativeAlgorithm.create_worker`` returns for a built-in algorithm
    (read from the import its branch does).

    The gate tells these from a plugin's workers: a plugin registered through
    sglang's ``spec_registry`` runs under a ``CustomSpecAlgo``, whose
    ``is_<algo>()`` predicates are all false, so it takes the fall-through
    path of every default that dispatches on the algorithm; a built-in worker
    takes its own algorithm's branch.
    """

    #: The module that defines the class (re-exports followed).
    module: str
    name: str
    #: The ``return`` in ``create_worker``.
    site: Site
    #: The (algorithm, scheduler branch) pairs for which ``create_worker``
    #: may return it (``("EAGLE", "overlap")``): its path's conditions
    #: evaluated for each enum member on each branch, a condition that cannot
    #: be read counting as true. Empty: not read (every pair).
    reach: tuple[tuple[str, str], ...] = ()

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.name}"

    def reaches(self, use: Use) -> bool:
        """Whether this worker can meet ``use``: on one of its pairs, the use's
        branch is that branch (or both) and no ``skipped_by`` entry names it."""
        if not self.reach:
            return True
        return any(
            use.branch in ("", branch)
            and not any(algorithm in skipped and on in ("", branch) for skipped, on in use.skipped_by)
            for algorithm, branch in self.reach
        )


@dataclass(frozen=True, slots=True)
class AlgorithmObject:
    """What a release asks of the algorithm object (``spec_algorithm``: a
    member of the enum ``SpeculativeAlgorithm``, or a plugin's
    ``CustomSpecAlgo``/``spec_class`` instance), read by
    ``_extract/_algorithm_object.py``."""

    #: The enum's instance methods: the interface the algorithm object duck-types, in its order.
    members: tuple[str, ...]
    #: Every use of one of them outside the enum and ``CustomSpecAlgo``, in
    #: member and site order: a call, or a read handed on as a callback
    #: (receiver ``spec_algorithm``; each ``required``: which algorithm a use
    #: is behind is the use's own business, a plugin's object meets every one
    #: its predicates let through).
    uses: tuple[Use, ...]
    #: What ``CustomSpecAlgo`` (a registration's default ``spec_class``) defines.
    default_members: tuple[str, ...]
    #: Where ``CustomSpecAlgo`` is defined.
    default_site: Site | None = None

    def used(self) -> tuple[str, ...]:
        """The members sglang uses, in the enum's order."""
        called = {u.member for u in self.uses}
        return tuple(m for m in self.members if m in called)

    def sites_of(self, member: str) -> tuple[Site, ...]:
        return tuple(u.site for u in self.uses if u.member == member)


@dataclass(frozen=True, slots=True)
class Contract:
    """Everything one sglang release asks of a speculative worker and its draft
    worker, read from the release's source (never imported) by ``extract_contract``."""

    release: str
    #: Where the source was read (a path, for messages).
    source: str
    #: Every use of the spec worker by the scheduler and its components.
    spec_worker: tuple[Use, ...]
    #: BaseSpecWorker's defaults and their needs.
    defaults: tuple[DefaultNeeds, ...]
    #: The keywords of the call that constructs the spec worker, and where.
    constructor_keywords: tuple[str, ...]
    constructor_site: Site | None
    #: The keywords build_draft_tp_worker passes to draft_worker_cls (None: the
    #: release has no draft_worker_cls), and where.
    draft_factory_keywords: tuple[str, ...] | None
    draft_factory_site: Site | None
    #: What build_draft_tp_worker does with the object it built.
    built_draft: tuple[Use, ...] = field(default=())
    #: The workers ``SpeculativeAlgorithm.create_worker`` returns, in its order.
    built_in_workers: tuple[BuiltInWorker, ...] = field(default=())
    #: Members found with ``getattr``/``hasattr`` on the spec worker or its draft worker, and their uses.
    hooks: tuple[Hook, ...] = field(default=())
    #: The registration flag that selects the scheduler's branch: the name of
    #: the custom algorithm's attribute (``supports_overlap``, set by
    #: ``SpeculativeAlgorithm.register(name, supports_overlap=...)``) without
    #: which its ``create_worker`` refuses overlap scheduling
    #: (``spec_registry.CustomSpecAlgo.create_worker``: ``if not
    #: cfg.disable_overlap_schedule and not self.supports_overlap: raise``):
    #: an algorithm registered with it false runs only the :data:`SYNCHRONOUS`
    #: branch. ``None``: the release has no such flag.
    overlap_flag: str | None = None
    #: What a registration that does not pass the flag gets (``register``'s
    #: default: ``supports_overlap: bool = False``).
    overlap_flag_default: bool = False
    #: The algorithm object's interface and uses (``None``: the release has no
    #: plugin registry, or the contract was read before the gate read it).
    algorithm: AlgorithmObject | None = None

    def required_members(self) -> frozenset[str]:
        """The members of the spec worker every algorithm reaches (not those
        of its own draft or target worker: receiver ``spec_worker`` only)."""
        return frozenset(self.required_uses())

    def required_uses(self) -> dict[str, tuple[Use, ...]]:
        """The uses of each member :meth:`required_members` names, members in
        name order, each member's uses in the order the contract lists them."""
        found: dict[str, list[Use]] = {}
        for use in self.spec_worker:
            if use.classification == "required" and use.receiver == "spec_worker":
                found.setdefault(use.member, []).append(use)
        return {member: tuple(found[member]) for member in sorted(found)}

    def uses_of(self, member: str) -> tuple[Use, ...]:
        """Every use of one spec-worker member, in file/function order."""
        return tuple(sorted((u for u in self.spec_worker if u.member == member), key=lambda u: u.site))

    def default(self, method: str) -> DefaultNeeds | None:
        return next((d for d in self.defaults if d.method == method), None)
